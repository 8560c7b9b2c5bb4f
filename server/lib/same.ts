/**
 * Compile-time checks that two declarations describe one shape, such as a wire
 * type of contract/ and the TypeBox schema a route checks it with.
 *
 * @example
 *   const trackBodyIsTheContract: Same<typeof TrackBody.static, wire.TrackBody> = true;
 */

/** True when each type accepts the other. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** True when every `Narrow` is also a `Wide`: a contract naming what an open schema (`additionalProperties`, a free-form object) leaves unsaid. */
export type Narrows<Narrow, Wide> = [Narrow] extends [Wide] ? true : false;
