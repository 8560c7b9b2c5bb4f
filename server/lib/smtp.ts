/**
 * A plain-text mail sent through an SMTP server (RFC 5321), with what an invite
 * needs and no more: `smtp://` (or `smtps://`, TLS from the start) with an optional
 * `user:password@` sent as AUTH PLAIN (RFC 4616).
 *
 * @example
 *   await sendMail("smtp://mailer:secret@mail.example:587", { from: "team@shop.example", to: "sam@shop.example", subject: "Hi", text: "Hello" });
 */
export interface Mail {
  from: string;
  to: string;
  subject: string;
  text: string;
}

const TIMEOUT_MS = 15_000;

/** One header line: no line break may smuggle in another header. */
const header = (value: string) => value.replace(/[\r\n]+/g, " ");

export async function sendMail(url: string, mail: Mail): Promise<void> {
  const target = new URL(url);
  const tls = target.protocol === "smtps:";
  let buffer = "";
  const replies: string[] = [];
  const waiting: ((reply: string) => void)[] = [];
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
    for (const wake of waiting.splice(0)) wake("");
  };
  // A reply is complete at its last line, "NNN text" (the lines before are "NNN-text").
  const drain = () => {
    for (let match = /^\d{3}(?: [^\n]*)?\r?\n/m.exec(buffer); match; match = /^\d{3}(?: [^\n]*)?\r?\n/m.exec(buffer)) {
      const end = match.index + match[0].length;
      const reply = buffer.slice(0, end);
      buffer = buffer.slice(end);
      const wake = waiting.shift();
      if (wake) wake(reply);
      else replies.push(reply);
    }
  };
  const socket = await Bun.connect({
    hostname: target.hostname,
    port: Number(target.port || (tls ? 465 : 25)),
    tls,
    socket: {
      data(_socket, data) {
        buffer += data.toString();
        drain();
      },
      close: () => fail(new Error("the SMTP server closed the connection")),
      error: (_socket, error) => fail(error),
    },
  });
  const timer = setTimeout(() => fail(new Error("the SMTP server did not answer in time")), TIMEOUT_MS);
  const expect = async (code: string, command?: string) => {
    if (command !== undefined) socket.write(`${command}\r\n`);
    const reply = replies.shift() ?? (await new Promise<string>((wake) => (failure ? wake("") : waiting.push(wake))));
    if (failure) throw failure;
    if (!reply.startsWith(code)) throw new Error(`SMTP ${command?.split(" ")[0] ?? "greeting"}: ${reply.trim().slice(0, 200)}`);
  };
  try {
    await expect("220");
    await expect("250", "EHLO frameline");
    if (target.username) {
      const plain = Buffer.from(`\0${decodeURIComponent(target.username)}\0${decodeURIComponent(target.password)}`).toString("base64");
      await expect("235", `AUTH PLAIN ${plain}`);
    }
    await expect("250", `MAIL FROM:<${header(mail.from).replace(/^.*<|>.*$/g, "")}>`);
    await expect("250", `RCPT TO:<${header(mail.to)}>`);
    await expect("354", "DATA");
    // A line of the body that starts with a dot gets another (RFC 5321 4.5.2).
    const body = mail.text.replace(/\r?\n/g, "\r\n").replace(/^\./gm, "..");
    const message = [
      `From: ${header(mail.from)}`,
      `To: ${header(mail.to)}`,
      `Subject: ${header(mail.subject)}`,
      `Date: ${new Date().toUTCString()}`,
      "MIME-Version: 1.0",
      "Content-Type: text/plain; charset=utf-8",
      "Content-Transfer-Encoding: 8bit",
      "",
      body,
      ".",
    ].join("\r\n");
    await expect("250", message);
    socket.write("QUIT\r\n");
  } finally {
    clearTimeout(timer);
    socket.end();
  }
}
