import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { createRequire } from "node:module";
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { spawnUntilReady } from "./process.ts";
import type { Subprocess } from "bun";

/** The part of s3rver (untyped CommonJS) that the helper uses. */
interface S3rverInstance {
  middleware: KoaMiddleware[];
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}
type S3rverConstructor = new (opts: Record<string, unknown>) => S3rverInstance;
type S3ErrorConstructor = new (code: string, message: string, detail?: Record<string, string>) => Error;
interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | undefined>;
  status: number;
  body: unknown;
}
type KoaMiddleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;

const require = createRequire(import.meta.url);

export interface S3rverHandle {
  endpoint: string;
  client: S3Client;
  createBucket(name: string): Promise<void>;
  stop(): Promise<void>;
}

/** A real S3 emulator on a free loopback port, storing in a fresh temp dir (or in `directory`, which it removes when it stops). */
export async function startS3rver(options: { directory?: string } = {}): Promise<S3rverHandle> {
  const S3rver = require("s3rver") as S3rverConstructor;
  readAfterWrite();
  const directory = options.directory ?? (await mkdtemp(join(tmpdir(), "frameline-s3rver-")));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory });
  // Koa composes middleware when the server starts listening, so this runs first.
  server.middleware.unshift(multipartUploadGuard(directory));
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    // s3rver does not understand the aws-chunked bodies that carry CRC trailers.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  return {
    endpoint,
    client,
    async createBucket(name) {
      // S3 bucket names are 3..63 characters; s3rver rejects shorter ones.
      await client.send(new CreateBucketCommand({ Bucket: name }));
    },
    async stop() {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * s3rver 3.7 has no AbortMultipartUpload and accepts parts for unknown uploads.
 * Real S3 answers both with NoSuchUpload; this adds that behaviour so the contract
 * suite can check abort on the emulator too.
 */
function multipartUploadGuard(directory: string): KoaMiddleware {
  const S3Error = require("s3rver/lib/models/error") as S3ErrorConstructor;
  return async (ctx, next) => {
    const uploadId = ctx.query.uploadId;
    if (uploadId === undefined || !["PUT", "POST", "DELETE"].includes(ctx.method)) return next();
    const bucket = decodeURIComponent(ctx.path.split("/")[1] ?? "");
    // s3rver's FilesystemStore keeps uploads in <dir>/<bucket>/._S3rver_uploads/<id>.
    const uploadDir = join(directory, bucket, "._S3rver_uploads", uploadId);
    const exists = /^[0-9a-f]+$/.test(uploadId) && (await stat(join(uploadDir, "key")).catch(() => undefined));
    if (!exists) {
      throw new S3Error("NoSuchUpload", "The specified upload does not exist.", { UploadId: uploadId });
    }
    if (ctx.method !== "DELETE") return next();
    await rm(uploadDir, { recursive: true, force: true });
    ctx.status = 204;
    ctx.body = "";
  };
}

/** The part of s3rver's FilesystemStore that `readAfterWrite` replaces. */
interface FilesystemStoreProto {
  getResourcePath(bucket: string, key: string | undefined, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  putObject(object: { bucket: string; key: string; metadata: unknown; content: Buffer | Readable }): Promise<{ size: number; md5: string }>;
  putPart(bucket: string, uploadId: string, partNumber: number, content: Readable): Promise<{ size: number; md5: string }>;
}

let consistent = false;

/**
 * s3rver 3.7 answers a PUT once it has read the body, before its file is
 * written, so a GET (or a CompleteMultipartUpload reading a part) right after
 * can see the old bytes. Real S3 reads back what it acknowledged: these two
 * writes answer only when the file is on disk.
 */
function readAfterWrite(): void {
  if (consistent) return;
  consistent = true;
  const proto = (require("s3rver/lib/stores/filesystem") as { prototype: FilesystemStoreProto }).prototype;
  const write = async (path: string, content: Buffer | Readable): Promise<{ size: number; md5: string }> => {
    await mkdir(dirname(path), { recursive: true });
    const md5 = createHash("md5");
    let size = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        md5.update(chunk);
        size += chunk.length;
        callback(null, chunk);
      },
    });
    await pipeline(Buffer.isBuffer(content) ? Readable.from([content]) : content, count, createWriteStream(path));
    return { size, md5: md5.digest("hex") };
  };
  proto.putObject = async function (object) {
    const written = await write(this.getResourcePath(object.bucket, object.key, "object"), object.content);
    await this.putMetadata(object.bucket, object.key, object.metadata, written.md5);
    return written;
  };
  proto.putPart = async function (bucket, uploadId, partNumber, content) {
    const path = `${this.getResourcePath(bucket, undefined, "uploads")}/${uploadId}/${partNumber}`;
    const written = await write(path, content);
    await writeFile(`${path}.md5`, written.md5);
    return written;
  };
}

export const S3RVER_READY_LINE = "S3 on ";

/**
 * The emulator in a child process with `bucket` created, for tests whose
 * processes talk to it while the test process itself is busy (its event loop
 * then serves no S3 request late). SIGTERM stops it and removes `directory`.
 */
export async function spawnS3rver(opts: {
  bucket: string;
  directory: string;
  timeoutMs?: number;
}): Promise<{ endpoint: string; proc: Subprocess; stop(): Promise<void> }> {
  const child = await spawnUntilReady(
    "s3rver",
    [process.execPath, import.meta.path, "--bucket", opts.bucket, "--dir", opts.directory],
    /S3 on (http:\/\/\S+)\n/,
    opts.timeoutMs,
  );
  return { endpoint: child.match[1]!, proc: child.proc, stop: child.stop };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const server = await startS3rver({ directory: arg("dir") });
  const bucket = arg("bucket");
  if (bucket) await server.createBucket(bucket);
  process.stdout.write(`${S3RVER_READY_LINE}${server.endpoint}\n`);
  const shutdown = async () => {
    await server.stop();
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}
