/** Longest quotation of a client's value in any message (a hostile 1 MiB value is never echoed whole). */
export const CLIENT_VALUE_MAX_CHARS = 60;

/**
 * A value the client sent, quoted for a message: JSON, cut to a bounded length with "…". The one
 * helper every message that echoes input uses, so an error answer stays small whatever was sent.
 */
export function clientValue(value: unknown, max = CLIENT_VALUE_MAX_CHARS): string {
  // Cut long strings before serializing so a huge value costs nothing to quote.
  const subject = typeof value === "string" && value.length > max ? value.slice(0, max) : value;
  let text: string;
  try {
    text = JSON.stringify(subject) ?? String(subject);
  } catch {
    // Objects that cannot be serialized (cycles, BigInt) are named by their kind only.
    text = Object.prototype.toString.call(subject);
  }
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
