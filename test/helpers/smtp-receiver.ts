/** An SMTP server on a free loopback port that takes every mail and keeps it (for invites sent when SMTP_URL is set). */
export interface ReceivedMail {
  from: string;
  to: string[];
  data: string;
  auth: string | null;
}

export interface SmtpReceiver {
  url: string;
  mails: ReceivedMail[];
  stop(): void;
}

export function startSmtpReceiver(user?: { name: string; password: string }): SmtpReceiver {
  const mails: ReceivedMail[] = [];
  type State = { buffer: string; data: boolean; mail: ReceivedMail };
  const fresh = (): ReceivedMail => ({ from: "", to: [], data: "", auth: null });
  const server = Bun.listen<State>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { buffer: "", data: false, mail: fresh() };
        socket.write("220 test ESMTP\r\n");
      },
      data(socket, chunk) {
        const s = socket.data;
        s.buffer += chunk.toString();
        for (let end = s.buffer.indexOf("\r\n"); end >= 0; end = s.buffer.indexOf("\r\n")) {
          const line = s.buffer.slice(0, end);
          s.buffer = s.buffer.slice(end + 2);
          if (s.data) {
            if (line === ".") {
              s.data = false;
              mails.push(s.mail);
              s.mail = { ...fresh(), auth: s.mail.auth };
              socket.write("250 queued\r\n");
            } else s.mail.data += `${line.startsWith("..") ? line.slice(1) : line}\n`;
            continue;
          }
          const verb = line.split(" ")[0]!.toUpperCase();
          if (verb === "EHLO") socket.write("250-test\r\n250 AUTH PLAIN\r\n");
          else if (verb === "AUTH") {
            const [, user_, password] = Buffer.from(line.split(" ")[2] ?? "", "base64")
              .toString()
              .split("\0");
            const ok = !user || (user_ === user.name && password === user.password);
            s.mail.auth = user_ ?? null;
            socket.write(ok ? "235 ok\r\n" : "535 no\r\n");
          } else if (verb === "MAIL") {
            s.mail.from = /<(.*)>/.exec(line)?.[1] ?? "";
            socket.write("250 ok\r\n");
          } else if (verb === "RCPT") {
            s.mail.to.push(/<(.*)>/.exec(line)?.[1] ?? "");
            socket.write("250 ok\r\n");
          } else if (verb === "DATA") {
            s.data = true;
            socket.write("354 go on\r\n");
          } else if (verb === "QUIT") {
            socket.write("221 bye\r\n");
            socket.end();
          } else socket.write("500 what\r\n");
        }
      },
    },
  });
  return { url: `smtp://${user ? `${user.name}:${user.password}@` : ""}127.0.0.1:${server.port}`, mails, stop: () => server.stop(true) };
}
