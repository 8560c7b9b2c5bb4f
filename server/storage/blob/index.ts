export * from "./blob-store.ts";
export { createFsBlobStore } from "./fs.ts";
export { createS3BlobStore } from "./s3.ts";
export type { S3BlobStoreOptions } from "./s3.ts";
