/** Upload ids (docs/api.md "Name and prefixes": `flup_` + lowercase hex): the one maker and the one pattern. */

/** Ids this service makes and accepts; anything else is UPLOAD_NOT_FOUND without a query. */
export const UPLOAD_ID_PATTERN = "^flup_[0-9a-f]{1,64}$";
const UPLOAD_ID = new RegExp(UPLOAD_ID_PATTERN);

export const isUploadId = (id: string): boolean => UPLOAD_ID.test(id);

/** `flup_` + 32 lowercase hex. */
export function newUploadId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `flup_${Buffer.from(bytes).toString("hex")}`;
}
