import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, readFile, rename, rm, rmdir, stat, statfs, unlink, writeFile } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import type { Stats } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { BlobError, BlobErrorCode, assertBlobKey, assertBlobPrefix, contentTypeFor, joinPublicUrl, resolveRange } from "./blob-store.ts";
import type { BlobBody, BlobInfo, BlobObject, BlobStore, ByteRange, ChunkedOptions, ChunkedState, PutOptions } from "./blob-store.ts";

/**
 * Filesystem blob store. Layout under `rootDir`, for a key `a/b.mp4`:
 *   a/b.mp4                 the blob
 *   a/b.mp4.meta.json       only when put with a content type or cache control
 *                           the extension does not already imply (HLS output needs none)
 *   a/b.mp4.<handle>.partial   a chunked upload in progress: its bytes, appended
 *   a/b.mp4.partial.meta.json  the handle of the upload in progress and its options
 *   a/.b.mp4.<rand>.tmp     a put in progress, renamed over the blob when complete
 * Listings skip all but the blobs. Within a process, chunk operations on a key are
 * queued; across processes the caller must keep one writer per upload session.
 */
export function createFsBlobStore(rootDir: string, opts: { publicBaseUrl?: string } = {}): BlobStore {
  const root = resolve(rootDir);
  const locks = new KeyedQueue();
  const pathOf = (key: string): string => {
    assertBlobKey(key);
    const path = join(root, ...key.split("/"));
    // Belt and braces: assertBlobKey already refuses every escaping form.
    if (!path.startsWith(root + sep)) throw new BlobError(BlobErrorCode.InvalidKey, `key escapes the root: ${key}`);
    return path;
  };

  return {
    kind: "fs",
    put: async (key, body, putOpts) => putBlob(pathOf(key), key, body, putOpts ?? {}),
    get: async (key, range) => getBlob(pathOf(key), key, range),
    head: async (key) => headBlob(pathOf(key), key),
    delete: async (key) => {
      const path = pathOf(key);
      await Promise.all([removeFile(path), removeFile(metaPath(path))]);
    },
    deletePrefix: async (prefix) => deleteUnder(root, prefix),
    list: (prefix) => listUnder(root, prefix),
    publicUrl: (key) => joinPublicUrl(opts.publicBaseUrl, key),
    freeBytes: async () => {
      await mkdir(root, { recursive: true });
      const s = await statfs(root);
      return s.bavail * s.bsize;
    },
    beginChunked: async (key, chunkOpts) => {
      const path = pathOf(key);
      return locks.run(path, () => beginUpload(path, chunkOpts ?? {}));
    },
    appendChunked: async (key, handle, state, body) => {
      const path = pathOf(key);
      return locks.run(path, () => appendUpload(path, handle, state, body));
    },
    completeChunked: async (key, handle, state) => {
      const path = pathOf(key);
      return locks.run(path, () => completeUpload(path, key, handle, state));
    },
    abortChunked: async (key, handle) => {
      const path = pathOf(key);
      return locks.run(path, () => abortUpload(path, handle));
    },
  };
}

// ---- metadata ----

interface BlobMeta {
  contentType?: string;
  cacheControl?: string;
}

const metaPath = (path: string): string => `${path}.meta.json`;
const partialPath = (path: string): string => `${path}.partial`;

/** Only what the extension cannot tell is stored, so most blobs have no sidecar. */
function sidecarFor(path: string, opts: BlobMeta): BlobMeta | undefined {
  const meta: BlobMeta = {};
  if (opts.contentType && opts.contentType !== contentTypeFor(path)) meta.contentType = opts.contentType;
  if (opts.cacheControl) meta.cacheControl = opts.cacheControl;
  return Object.keys(meta).length ? meta : undefined;
}

async function writeSidecar(path: string, opts: BlobMeta): Promise<void> {
  const meta = sidecarFor(path, opts);
  if (meta) await writeJsonAtomic(metaPath(path), meta);
  else await rm(metaPath(path), { force: true });
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as T;
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
}

/** Temp file + rename, so a crash never leaves half a JSON document. */
async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  const tmp = tempPath(path);
  await writeFile(tmp, JSON.stringify(value));
  await rename(tmp, path);
}

function toInfo(key: string, path: string, st: Stats, meta: BlobMeta | undefined): BlobInfo {
  return {
    key,
    size: st.size,
    contentType: meta?.contentType ?? contentTypeFor(path),
    cacheControl: meta?.cacheControl,
    etag: statEtag(st),
    lastModified: st.mtime,
  };
}

/**
 * From the inode, size and mtime, like nginx's, so reads never hash content. Every
 * put and complete renames a new file in, so the inode changes even within one ms.
 */
const statEtag = (st: Stats): string => `"${st.ino.toString(16)}-${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;

/** Like S3, deleting what is not a blob (nothing, or a "directory") is a no-op. */
async function removeFile(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!isMissing(err) && code !== "EISDIR" && code !== "EPERM") throw err;
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

function tempPath(path: string): string {
  const dir = dirname(path);
  const name = path.slice(dir.length + 1);
  return join(dir, `.${name}.${randomBytes(6).toString("hex")}.tmp`);
}

// ---- put / get / head ----

async function putBlob(path: string, key: string, body: BlobBody, opts: PutOptions): Promise<BlobInfo> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = tempPath(path);
  try {
    const written = await writeBody(tmp, body);
    if (opts.size !== undefined && written !== opts.size) {
      const code = written < opts.size ? BlobErrorCode.ShortBody : BlobErrorCode.LongBody;
      throw new BlobError(code, `expected ${opts.size} bytes, got ${written}`);
    }
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
  await writeSidecar(path, opts);
  return toInfo(key, path, await stat(path), sidecarFor(path, opts));
}

async function writeBody(path: string, body: BlobBody): Promise<number> {
  if (typeof body === "string" || body instanceof Uint8Array) {
    const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
    await writeFile(path, bytes);
    return bytes.byteLength;
  }
  // A Blob may be a file on disk; streaming it keeps memory flat either way.
  const stream = body instanceof Blob ? body.stream() : body;
  const fh = await open(path, "w");
  try {
    return (await writeStreamAt(fh, stream, 0, Number.POSITIVE_INFINITY)).written;
  } finally {
    await fh.close();
  }
}

/**
 * Writes the stream at `offset`, awaiting each write so a slow disk slows the
 * reader. Stops and reports `written > limit` as soon as the limit is crossed.
 * Reads are gathered, without a copy, into one vectored write per WRITE_SIZE bytes.
 */
async function writeStreamAt(fh: FileHandle, stream: ReadableStream<Uint8Array>, offset: number, limit: number): Promise<{ written: number }> {
  const reader = stream.getReader();
  let written = 0;
  // Up to WRITES_IN_FLIGHT positioned writes run while the next reads arrive:
  // the network and the disk work at the same time, and memory stays bounded.
  const writing = new Set<Promise<void>>();
  let gathered: Uint8Array[] = [];
  let gatheredBytes = 0;
  const flush = async () => {
    if (gatheredBytes === 0) return;
    if (writing.size >= WRITES_IN_FLIGHT) await Promise.race(writing);
    const write = writeAllv(fh, gathered, gatheredBytes, offset + written).finally(() => writing.delete(write));
    write.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
    writing.add(write);
    written += gatheredBytes;
    gathered = [];
    gatheredBytes = 0;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (written + gatheredBytes + value.byteLength > limit) {
        await reader.cancel();
        await flush();
        await Promise.all(writing);
        return { written: written + value.byteLength };
      }
      if (value.byteLength === 0) continue;
      gathered.push(value);
      gatheredBytes += value.byteLength;
      if (gatheredBytes >= WRITE_SIZE) await flush();
    }
    await flush();
    await Promise.all(writing);
    return { written };
  } finally {
    await Promise.allSettled(writing);
    reader.releaseLock();
  }
}

const WRITES_IN_FLIGHT = 4;
const WRITE_SIZE = 256 * 1024;

async function writeAll(fh: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < bytes.byteLength) {
    const { bytesWritten } = await fh.write(bytes, done, bytes.byteLength - done, position + done);
    done += bytesWritten;
  }
}

/** Writes `buffers` (`total` bytes) at `position`: one vectored write, the rest (if the kernel took less) one by one. */
async function writeAllv(fh: FileHandle, buffers: Uint8Array[], total: number, position: number): Promise<void> {
  if (buffers.length === 1) return writeAll(fh, buffers[0]!, position);
  const { bytesWritten } = await fh.writev(buffers, position);
  if (bytesWritten < total) await writeAll(fh, Buffer.concat(buffers, total).subarray(bytesWritten), position + bytesWritten);
}

async function headBlob(path: string, key: string): Promise<BlobInfo | undefined> {
  try {
    const [st, meta] = await Promise.all([stat(path), readJson<BlobMeta>(metaPath(path))]);
    return st.isFile() ? toInfo(key, path, st, meta) : undefined;
  } catch (err) {
    if (isMissing(err)) return undefined;
    throw err;
  }
}

async function getBlob(path: string, key: string, range: ByteRange | undefined): Promise<BlobObject | undefined> {
  let fh: FileHandle;
  try {
    fh = await open(path, "r");
  } catch (err) {
    if (isMissing(err) || (err as NodeJS.ErrnoException).code === "EISDIR") return undefined;
    throw err;
  }
  try {
    // Stat the open descriptor: a concurrent put renames a new file in, and we
    // keep serving the one we opened, consistently.
    const [st, meta] = await Promise.all([fh.stat(), readJson<BlobMeta>(metaPath(path))]);
    if (!st.isFile()) {
      await fh.close();
      return undefined;
    }
    const info = toInfo(key, path, st, meta);
    if (!range) return { ...info, body: fileStream(fh, 0, st.size - 1) };
    const served = resolveRange(range, st.size);
    return { ...info, range: served, body: fileStream(fh, served.start, served.end) };
  } catch (err) {
    await fh.close();
    throw err;
  }
}

const READ_SIZE = 256 * 1024;

/** Streams bytes start..end (inclusive) of an open file and closes it when done. */
function fileStream(fh: FileHandle, start: number, end: number): ReadableStream<Uint8Array> {
  let position = start;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const want = Math.min(READ_SIZE, end + 1 - position);
      if (want <= 0) {
        await fh.close();
        controller.close();
        return;
      }
      const buf = new Uint8Array(want);
      const { bytesRead } = await fh.read(buf, 0, want, position);
      if (bytesRead === 0) {
        await fh.close();
        controller.error(new Error("file shrank while being read"));
        return;
      }
      position += bytesRead;
      controller.enqueue(bytesRead === want ? buf : buf.subarray(0, bytesRead));
    },
    async cancel() {
      await fh.close();
    },
  });
}

// ---- list / deletePrefix ----

/** Blob files only: not sidecars, partial uploads or temp files. */
function isBlobName(name: string): boolean {
  return !name.startsWith(".") && !name.endsWith(".partial") && !name.endsWith(".meta.json");
}

/**
 * Walks the directory holding `prefix` depth-first. Sorting directory names as
 * "name/" makes the walk yield keys in plain byte order, like an S3 listing.
 */
async function* walkPrefix(root: string, prefix: string): AsyncGenerator<{ key: string; path: string }> {
  assertBlobPrefix(prefix);
  const slash = prefix.lastIndexOf("/");
  const dirKey = prefix.slice(0, slash + 1);
  const namePrefix = prefix.slice(slash + 1);
  yield* walkDir(join(root, ...dirKey.split("/").filter(Boolean)), dirKey, namePrefix);
}

async function* walkDir(dir: string, dirKey: string, namePrefix: string): AsyncGenerator<{ key: string; path: string }> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (isMissing(err)) return;
    throw err;
  }
  const sorted = entries
    .filter((e) => e.name.startsWith(namePrefix) && (e.isDirectory() || (e.isFile() && isBlobName(e.name))))
    .map((e) => ({ entry: e, sortKey: Buffer.from(e.isDirectory() ? `${e.name}/` : e.name) }))
    .sort((a, b) => Buffer.compare(a.sortKey, b.sortKey));
  for (const { entry } of sorted) {
    const path = join(dir, entry.name);
    const key = dirKey + entry.name;
    if (entry.isDirectory()) {
      if (!entry.name.startsWith(".")) yield* walkDir(path, `${key}/`, "");
    } else {
      yield { key, path };
    }
  }
}

async function* listUnder(root: string, prefix: string): AsyncGenerator<BlobInfo> {
  for await (const { key, path } of walkPrefix(root, prefix)) {
    try {
      const st = await stat(path);
      yield { key, size: st.size, etag: statEtag(st), lastModified: st.mtime };
    } catch (err) {
      // Deleted between readdir and stat: it is simply no longer listed.
      if (!isMissing(err)) throw err;
    }
  }
}

async function deleteUnder(root: string, prefix: string): Promise<number> {
  // An empty prefix would wipe the whole store: never by accident.
  if (prefix === "") throw new BlobError(BlobErrorCode.InvalidKey, "deletePrefix needs a non-empty prefix");
  let count = 0;
  const dirs = new Set<string>();
  for await (const { path } of walkPrefix(root, prefix)) {
    await Promise.all([removeFile(path), removeFile(metaPath(path))]);
    dirs.add(dirname(path));
    count++;
  }
  await pruneEmptyDirs(root, dirs);
  return count;
}

/** Removes directories left empty, deepest first, never the root itself. */
async function pruneEmptyDirs(root: string, dirs: Set<string>): Promise<void> {
  const all = new Set<string>();
  for (let dir of dirs) {
    while (dir.startsWith(root + sep)) {
      all.add(dir);
      dir = dirname(dir);
    }
  }
  for (const dir of [...all].sort((a, b) => b.length - a.length)) {
    // ENOTEMPTY just means something else lives there.
    await rmdir(dir).catch(() => undefined);
  }
}

// ---- chunked uploads ----

interface UploadState extends BlobMeta {
  handle: string;
}

/** The handle is in the name, so an append knows its upload by opening the file: no state to read first. */
const bytesPath = (path: string, handle: string): string => `${path}.${handle}.partial`;
const uploadStatePath = (path: string): string => metaPath(partialPath(path));

const isHandle = (handle: string): boolean => /^[0-9a-f]{32}$/.test(handle);

async function beginUpload(path: string, opts: ChunkedOptions): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  const handle = randomBytes(16).toString("hex");
  // Starting over replaces any earlier upload of this key: its handle stops working.
  const earlier = await readJson<UploadState>(uploadStatePath(path));
  if (earlier && isHandle(earlier.handle)) await removeFile(bytesPath(path, earlier.handle));
  await writeFile(bytesPath(path, handle), new Uint8Array(0));
  await writeJsonAtomic(uploadStatePath(path), { handle, ...opts } satisfies UploadState);
  return handle;
}

const noSuchUpload = (handle: string) => new BlobError(BlobErrorCode.NoSuchUpload, `no upload ${handle} in progress for this key`);

async function openUpload(path: string, handle: string): Promise<FileHandle> {
  if (!isHandle(handle)) throw noSuchUpload(handle);
  try {
    return await open(bytesPath(path, handle), "r+");
  } catch (err) {
    if (isMissing(err)) throw noSuchUpload(handle);
    throw err;
  }
}

/**
 * The caller's state, not the file length, says how many bytes count: bytes past
 * `state.offset` are leftovers of a failed append and are cut before writing.
 */
async function appendUpload(path: string, handle: string, state: ChunkedState, body: ReadableStream<Uint8Array>): Promise<ChunkedState> {
  const fh = await openUpload(path, handle);
  try {
    await cutTo(fh, state.offset);
    const { written } = await writeStreamAt(fh, body, state.offset, Number.POSITIVE_INFINITY);
    return { offset: state.offset + written, parts: [] };
  } finally {
    await fh.close();
  }
}

async function cutTo(fh: FileHandle, offset: number): Promise<void> {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new BlobError(BlobErrorCode.BadParts, `offset ${offset} is not a byte count`);
  const { size } = await fh.stat();
  // Fewer bytes than acknowledged: lost under us (a crash before they reached the disk).
  if (size < offset) throw new BlobError(BlobErrorCode.BadParts, `the partial file has ${size} bytes, fewer than the ${offset} recorded`);
  if (size > offset) await fh.truncate(offset);
}

async function completeUpload(path: string, key: string, handle: string, state: ChunkedState): Promise<BlobInfo> {
  const fh = await openUpload(path, handle);
  try {
    await cutTo(fh, state.offset);
  } finally {
    await fh.close();
  }
  const upload = (await readJson<UploadState>(uploadStatePath(path))) ?? { handle };
  // rename(2) replaces an existing blob atomically: readers see old or new, never neither.
  await rename(bytesPath(path, handle), path);
  await writeSidecar(path, upload);
  if (upload.handle === handle) await rm(uploadStatePath(path), { force: true });
  return toInfo(key, path, await stat(path), sidecarFor(path, upload));
}

async function abortUpload(path: string, handle: string): Promise<void> {
  if (!isHandle(handle)) return;
  await removeFile(bytesPath(path, handle));
  // Another handle means a newer upload of the same key: its state is not ours to remove.
  const state = await readJson<UploadState>(uploadStatePath(path));
  if (state?.handle === handle) await removeFile(uploadStatePath(path));
}

/** Runs tasks for the same key one after another. */
class KeyedQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const next = prev.then(task, task);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }
}
