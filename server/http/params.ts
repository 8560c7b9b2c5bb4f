/** A numeric path id; anything else resolves to nothing (the route then answers 404). */
export function parseId(raw: string): number | undefined {
  if (!/^[1-9]\d{0,15}$/.test(raw)) return undefined;
  const id = Number(raw);
  return Number.isSafeInteger(id) ? id : undefined;
}
