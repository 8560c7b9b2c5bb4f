import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import type { GetObjectCommandOutput, HeadObjectCommandOutput } from "@aws-sdk/client-s3";
import {
  BlobError,
  BlobErrorCode,
  DEFAULT_CONTENT_TYPE,
  MIN_PART_SIZE,
  PART_SIZE,
  RESERVED_SUFFIXES,
  assertBlobKey,
  assertBlobPrefix,
  contentTypeFor,
  joinPublicUrl,
  partsSize,
  resolveRange,
  stagedBytes,
} from "./blob-store.ts";
import type { BlobBody, BlobInfo, BlobObject, BlobStore, ByteRange, ChunkPart, ChunkedState, PutOptions } from "./blob-store.ts";

export interface S3BlobStoreOptions {
  bucket: string;
  /** Prepended to every key, e.g. "media/"; a missing trailing "/" is added. */
  prefix?: string;
  /** Used as is when given; the connection options below are then ignored. */
  client?: S3Client;
  endpoint?: string;
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Needed by most S3-compatible servers (MinIO, s3rver): bucket in the path. */
  forcePathStyle?: boolean;
  /** The URL serving this store's root, i.e. the bucket with `prefix` applied. */
  publicBaseUrl?: string;
}

/**
 * S3 blob store. Bodies stream through the SDK: a body of known size goes out
 * in one PutObject with its ContentLength; a stream of unknown size becomes a
 * multipart upload buffered one 8 MiB part at a time, so memory stays bounded.
 */
export function createS3BlobStore(opts: S3BlobStoreOptions): BlobStore {
  const client = opts.client ?? createClient(opts);
  const root = opts.prefix ? opts.prefix.replace(/\/*$/, "/") : "";
  const { bucket } = opts;
  const fullKey = (key: string): string => {
    assertBlobKey(key);
    return root + key;
  };
  const s3: S3 = { client, bucket, root };

  return {
    kind: "s3",
    put: async (key, body, putOpts) => putObject(s3, key, fullKey(key), body, putOpts ?? {}),
    get: async (key, range) => getObject(s3, key, fullKey(key), range),
    head: async (key) => headObject(s3, key, fullKey(key)),
    delete: async (key) => {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: fullKey(key) }));
    },
    deletePrefix: async (prefix) => deletePrefix(s3, prefix),
    list: (prefix) => listObjects(s3, prefix),
    publicUrl: (key) => joinPublicUrl(opts.publicBaseUrl, key),
    freeBytes: async () => Number.POSITIVE_INFINITY,
    beginChunked: async (key, chunkOpts) => {
      const out = await client.send(
        new CreateMultipartUploadCommand({
          Bucket: bucket,
          Key: fullKey(key),
          ContentType: chunkOpts?.contentType ?? contentTypeFor(key),
          CacheControl: chunkOpts?.cacheControl,
        }),
      );
      if (!out.UploadId) throw new Error("CreateMultipartUpload returned no UploadId");
      return out.UploadId;
    },
    appendChunked: async (key, handle, state, body) => appendParts(s3, fullKey(key), handle, state, body),
    completeChunked: async (key, handle, state) => {
      const full = fullKey(key);
      const parts = await withStagedPart(s3, full, handle, state);
      await asUploadError(
        client.send(
          new CompleteMultipartUploadCommand({
            Bucket: bucket,
            Key: full,
            UploadId: handle,
            MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })) },
          }),
        ),
      );
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: stagingKey(full) })).catch(() => undefined);
      return headOrThrow(s3, key, full);
    },
    abortChunked: async (key, handle) => {
      const full = fullKey(key);
      try {
        await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: full, UploadId: handle }));
      } catch (err) {
        if (!isNoSuchUpload(err)) throw err;
      }
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: stagingKey(full) }));
    },
  };
}

interface S3 {
  client: S3Client;
  bucket: string;
  /** Store prefix, "" or ending with "/". */
  root: string;
}

function createClient(opts: S3BlobStoreOptions): S3Client {
  const { accessKeyId, secretAccessKey } = opts;
  return new S3Client({
    endpoint: opts.endpoint,
    region: opts.region ?? "us-east-1",
    forcePathStyle: opts.forcePathStyle,
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    // The SDK's default CRC trailers use aws-chunked bodies, which several
    // S3-compatible servers reject; part sizes are verified by us instead.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

// ---- errors ----

function errorName(err: unknown): string | undefined {
  return (err as { name?: string } | undefined)?.name;
}

function isNotFound(err: unknown): boolean {
  const name = errorName(err);
  return name === "NoSuchKey" || name === "NotFound";
}

function isNoSuchUpload(err: unknown): boolean {
  return errorName(err) === "NoSuchUpload";
}

/** S3's answers to parts that are missing, changed or too small for a multipart upload. */
const BAD_PARTS = new Set(["InvalidPart", "InvalidPartOrder", "EntityTooSmall"]);

/** Gives multipart failures the same codes the fs store uses. */
async function asUploadError<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (isNoSuchUpload(err)) throw new BlobError(BlobErrorCode.NoSuchUpload, "no such multipart upload");
    if (BAD_PARTS.has(errorName(err) ?? "")) throw new BlobError(BlobErrorCode.BadParts, (err as Error).message);
    throw err;
  }
}

// ---- put ----

type NormalizedBody = { bytes: Uint8Array } | { stream: ReadableStream<Uint8Array>; size?: number };

function normalizeBody(body: BlobBody, size: number | undefined): NormalizedBody {
  if (typeof body === "string") return { bytes: new TextEncoder().encode(body) };
  if (body instanceof Uint8Array) return { bytes: body };
  if (body instanceof Blob) return { stream: body.stream(), size: body.size };
  return { stream: body, size };
}

/** Answers from the PutObject reply, without a HEAD: S3 does not say lastModified there. */
async function putObject(s3: S3, key: string, full: string, body: BlobBody, opts: PutOptions): Promise<BlobInfo> {
  const b = normalizeBody(body, opts.size);
  const meta = { ContentType: opts.contentType ?? contentTypeFor(key), CacheControl: opts.cacheControl };
  const input = { Bucket: s3.bucket, Key: full, ...meta };
  const info = (size: number, etag: string | undefined): BlobInfo => ({
    key,
    size,
    contentType: meta.ContentType,
    cacheControl: meta.CacheControl,
    etag,
  });
  if ("bytes" in b) {
    const size = b.bytes.byteLength;
    if (opts.size !== undefined && size !== opts.size) throw lengthError(opts.size, size);
    const out = await s3.client.send(new PutObjectCommand({ ...input, Body: b.bytes, ContentLength: size }));
    return info(size, out.ETag);
  }
  if (b.size !== undefined) {
    const size = b.size;
    const out = await sendCounted(b.stream, size, (Body, abortSignal) =>
      s3.client.send(new PutObjectCommand({ ...input, Body, ContentLength: size }), { abortSignal }),
    );
    return info(size, out.ETag);
  }
  const out = await putUnknownLength(s3, full, b.stream, meta);
  return info(out.size, out.etag);
}

/**
 * A stream of unknown length: the first part decides. If the stream ends within
 * one part it is a plain PutObject, else a multipart upload of 8 MiB parts.
 */
async function putUnknownLength(
  s3: S3,
  full: string,
  stream: ReadableStream<Uint8Array>,
  meta: { ContentType: string; CacheControl?: string },
): Promise<{ size: number; etag?: string }> {
  const parts = readParts(stream, PART_SIZE);
  const first = await parts.next();
  const firstBytes = first.done ? new Uint8Array(0) : first.value;
  if (firstBytes.byteLength < PART_SIZE) {
    const out = await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: full, ...meta, Body: firstBytes }));
    return { size: firstBytes.byteLength, etag: out.ETag };
  }
  const created = await s3.client.send(new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key: full, ...meta }));
  const uploadId = created.UploadId!;
  try {
    const done: ChunkPart[] = [];
    let bytes: Uint8Array | undefined = firstBytes;
    while (bytes) {
      done.push(await uploadPart(s3, full, uploadId, done.length + 1, bytes));
      const next = await parts.next();
      bytes = next.done ? undefined : next.value;
    }
    const out = await s3.client.send(
      new CompleteMultipartUploadCommand({
        Bucket: s3.bucket,
        Key: full,
        UploadId: uploadId,
        MultipartUpload: { Parts: done.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })) },
      }),
    );
    return { size: done.reduce((n, p) => n + p.size, 0), etag: out.ETag };
  } catch (err) {
    await s3.client.send(new AbortMultipartUploadCommand({ Bucket: s3.bucket, Key: full, UploadId: uploadId })).catch(() => undefined);
    throw err;
  }
}

/** Cuts a stream into buffers of exactly `size` bytes, the last one smaller (never empty unless the stream is). */
async function* readParts(stream: ReadableStream<Uint8Array>, size: number): AsyncGenerator<Uint8Array> {
  let buf = new Uint8Array(size);
  let filled = 0;
  for await (const chunk of stream) {
    let used = 0;
    while (used < chunk.byteLength) {
      const n = Math.min(size - filled, chunk.byteLength - used);
      buf.set(chunk.subarray(used, used + n), filled);
      filled += n;
      used += n;
      if (filled === size) {
        yield buf;
        buf = new Uint8Array(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield buf.subarray(0, filled);
}

// ---- get / head / list / delete ----

async function getObject(s3: S3, key: string, full: string, range: ByteRange | undefined): Promise<BlobObject | undefined> {
  if (range) resolveRange(range, Number.MAX_SAFE_INTEGER);
  let out: GetObjectCommandOutput;
  try {
    out = await s3.client.send(
      new GetObjectCommand({
        Bucket: s3.bucket,
        Key: full,
        Range: range ? `bytes=${range.start}-${range.end ?? ""}` : undefined,
      }),
    );
  } catch (err) {
    if (isNotFound(err)) return undefined;
    if (errorName(err) === "InvalidRange") throw new BlobError(BlobErrorCode.InvalidRange, `range ${range?.start}- is past the end`);
    throw err;
  }
  const body = out.Body?.transformToWebStream() ?? new Blob([]).stream();
  const served = parseContentRange(out.ContentRange);
  return {
    ...toInfo(key, out),
    size: served?.size ?? out.ContentLength ?? 0,
    body: body as ReadableStream<Uint8Array>,
    range: range && served ? { start: served.start, end: served.end } : undefined,
  };
}

/** "bytes 0-9/100" → the served range and the whole object's size. */
function parseContentRange(header: string | undefined): { start: number; end: number; size: number } | undefined {
  const m = header ? /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header) : null;
  return m ? { start: Number(m[1]), end: Number(m[2]), size: Number(m[3]) } : undefined;
}

function toInfo(key: string, out: HeadObjectCommandOutput | GetObjectCommandOutput): BlobInfo {
  return {
    key,
    size: out.ContentLength ?? 0,
    contentType: out.ContentType ?? DEFAULT_CONTENT_TYPE,
    cacheControl: out.CacheControl,
    etag: out.ETag,
    lastModified: out.LastModified,
  };
}

async function headObject(s3: S3, key: string, full: string): Promise<BlobInfo | undefined> {
  try {
    return toInfo(key, await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: full })));
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

async function headOrThrow(s3: S3, key: string, full: string): Promise<BlobInfo> {
  const info = await headObject(s3, key, full);
  if (!info) throw new Error(`object ${full} vanished right after it was written`);
  return info;
}

/** Pages of up to 1000 keys, the most S3 lists or deletes in one request. */
async function* listPages(s3: S3, prefix: string): AsyncGenerator<{ full: string; info: BlobInfo }[]> {
  assertBlobPrefix(prefix);
  let token: string | undefined;
  do {
    const out = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: s3.root + prefix, ContinuationToken: token }));
    yield (out.Contents ?? []).flatMap((o) =>
      o.Key === undefined ? [] : [{ full: o.Key, info: { key: o.Key.slice(s3.root.length), size: o.Size ?? 0, etag: o.ETag, lastModified: o.LastModified } }],
    );
    token = out.IsTruncated ? out.NextContinuationToken : undefined;
  } while (token);
}

/** Blobs only: staged bytes of uploads in progress are not listed (as the fs store hides its partial files). */
async function* listObjects(s3: S3, prefix: string): AsyncGenerator<BlobInfo> {
  for await (const page of listPages(s3, prefix)) for (const { info } of page) if (!isStoreFile(info.key)) yield info;
}

const isStoreFile = (key: string): boolean => RESERVED_SUFFIXES.some((s) => key.endsWith(s));

async function deletePrefix(s3: S3, prefix: string): Promise<number> {
  // An empty prefix would wipe the whole store: never by accident.
  if (prefix === "") throw new BlobError(BlobErrorCode.InvalidKey, "deletePrefix needs a non-empty prefix");
  let count = 0;
  for await (const page of listPages(s3, prefix)) {
    if (page.length === 0) continue;
    const out = await s3.client.send(
      new DeleteObjectsCommand({
        Bucket: s3.bucket,
        Delete: { Objects: page.map((o) => ({ Key: o.full })), Quiet: true },
      }),
    );
    const failed = out.Errors ?? [];
    if (failed.length) throw new Error(`could not delete ${failed[0]!.Key}: ${failed[0]!.Code} ${failed[0]!.Message}`);
    count += page.filter((o) => !isStoreFile(o.info.key)).length;
  }
  return count;
}

// ---- parts ----

/** Where bytes that do not yet fill a part wait between two appends. */
const stagingKey = (full: string): string => `${full}.incomplete`;

/**
 * Staged bytes + body, cut into parts: every full 8 MiB is sent as a part as
 * soon as it is in memory; what is left at the end is a part of its own when
 * it is big enough (>= 5 MiB), else it is staged for the next append. The
 * staging object is written once, at the end, so a failed append leaves the
 * caller's state (and the staged bytes it names) intact; parts it sent past
 * that state are overwritten by the next append's parts of the same numbers.
 */
async function appendParts(s3: S3, full: string, uploadId: string, state: ChunkedState, body: ReadableStream<Uint8Array>): Promise<ChunkedState> {
  const staged = stagedBytes(state);
  const parts = [...state.parts];
  const part = new PartBuffer(PART_SIZE);
  const send = async () => void parts.push(await uploadPart(s3, full, uploadId, parts.length + 1, part.bytes()));
  const reader = body.getReader();
  try {
    if (staged > 0) {
      const { body: stagedBody } = await readStaged(s3, full, staged);
      for await (const bytes of stagedBody) part.add(bytes);
    }
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      let rest: Uint8Array = value;
      while (rest.byteLength > 0) {
        rest = part.add(rest);
        if (part.full) {
          await send();
          part.clear();
        }
      }
    }
  } finally {
    reader.releaseLock();
  }
  if (part.size >= MIN_PART_SIZE) {
    await send();
    part.clear();
  } else if (part.size > 0 && (parts.length > state.parts.length || part.size > staged)) {
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: stagingKey(full), Body: part.bytes(), ContentLength: part.size }));
  }
  return { offset: partsSize(parts) + part.size, parts };
}

/** The parts of `state`, with its staged bytes sent as the last (possibly short) part. */
async function withStagedPart(s3: S3, full: string, uploadId: string, state: ChunkedState): Promise<ChunkPart[]> {
  const staged = stagedBytes(state);
  // A multipart upload needs one part; an empty object is one empty part.
  if (staged === 0 && state.parts.length > 0) return state.parts;
  const bytes = staged === 0 ? new Uint8Array(0) : new Uint8Array(await new Response((await readStaged(s3, full, staged)).body).arrayBuffer());
  return [...state.parts, await uploadPart(s3, full, uploadId, state.parts.length + 1, bytes)];
}

/** The first `size` bytes of the staging object; fewer means the state is not what S3 holds. */
async function readStaged(s3: S3, full: string, size: number): Promise<{ body: ReadableStream<Uint8Array> }> {
  let out: GetObjectCommandOutput;
  try {
    out = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: stagingKey(full), Range: `bytes=0-${size - 1}` }));
  } catch (err) {
    if (isNotFound(err) || errorName(err) === "InvalidRange") throw new BlobError(BlobErrorCode.BadParts, `no ${size} staged bytes for this upload`);
    throw err;
  }
  if (out.ContentLength !== size) {
    await out.Body?.transformToWebStream().cancel();
    throw new BlobError(BlobErrorCode.BadParts, `${out.ContentLength} staged bytes for this upload, not ${size}`);
  }
  return { body: out.Body!.transformToWebStream() as ReadableStream<Uint8Array> };
}

/** One part's bytes, gathered from pieces; grows on demand so a small upload never holds a whole part. */
class PartBuffer {
  private buffer = new Uint8Array(0);
  size = 0;

  constructor(private readonly capacity: number) {}

  get full(): boolean {
    return this.size === this.capacity;
  }

  /** Takes what fits; returns the rest. */
  add(bytes: Uint8Array): Uint8Array {
    const take = Math.min(bytes.byteLength, this.capacity - this.size);
    if (this.size + take > this.buffer.byteLength) {
      const grown = new Uint8Array(Math.min(this.capacity, Math.max(this.size + take, this.buffer.byteLength * 2, 64 * 1024)));
      grown.set(this.buffer.subarray(0, this.size));
      this.buffer = grown;
    }
    this.buffer.set(bytes.subarray(0, take), this.size);
    this.size += take;
    return bytes.subarray(take);
  }

  bytes(): Uint8Array {
    return this.buffer.subarray(0, this.size);
  }

  clear(): void {
    this.size = 0;
  }
}

async function uploadPart(s3: S3, full: string, uploadId: string, partNumber: number, bytes: Uint8Array): Promise<ChunkPart> {
  const out = await asUploadError(
    s3.client.send(
      new UploadPartCommand({ Bucket: s3.bucket, Key: full, UploadId: uploadId, PartNumber: partNumber, ContentLength: bytes.byteLength, Body: bytes }),
    ),
  );
  if (!out.ETag) throw new Error("UploadPart returned no ETag");
  return { partNumber, size: bytes.byteLength, etag: out.ETag };
}

function lengthError(expected: number, got: number): BlobError {
  const code = got < expected ? BlobErrorCode.ShortBody : BlobErrorCode.LongBody;
  return new BlobError(code, `expected ${expected} bytes, got ${got}`);
}

/**
 * Sends a stream declared as `size` bytes. The SDK only pipes the body, so a body
 * that ends early would leave the request waiting for bytes forever: the count is
 * checked as bytes pass, and on a mismatch or a body error the request is aborted
 * and that error is the one reported. (The SDK never retries stream bodies.)
 */
async function sendCounted<T>(stream: ReadableStream<Uint8Array>, size: number, send: (body: Readable, abortSignal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  let bodyError: unknown;
  let seen = 0;
  const counted = stream.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > size) throw lengthError(size, seen);
        controller.enqueue(chunk);
      },
      flush() {
        if (seen !== size) throw lengthError(size, seen);
      },
    }),
  );
  // Same runtime object; only the DOM and Node typings of web streams differ.
  const body = Readable.fromWeb(counted as unknown as NodeReadableStream<Uint8Array>);
  body.on("error", (err) => {
    bodyError = err;
    abort.abort(err);
  });
  try {
    return await send(body, abort.signal);
  } catch (err) {
    throw bodyError ?? err;
  }
}
