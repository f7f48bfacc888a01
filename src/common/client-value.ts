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

/**
 * A value the client sent, as a field of an answer rather than inside a sentence: a string as it
 * was sent, anything else as JSON; bounded like `clientValue` (cut with "…").
 */
export function echoedValue(value: unknown, max = CLIENT_VALUE_MAX_CHARS): string {
  if (typeof value !== "string") return clientValue(value, max);
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}

/** Longest message that quotes client values in text written by others (graphql-js, Apollo). */
export const ECHOING_MESSAGE_MAX_CHARS = 1000;

// A double-quoted JSON string: how graphql-js quotes the values, names and keys it echoes.
const QUOTED = /"(?:[^"\\]|\\.)*"/g;
// A word longer than any of a message's own: a value echoed unquoted (graphql-js prints the keys
// of an object bare).
const LONG_WORD = new RegExp(`[^\\s"]{${CLIENT_VALUE_MAX_CHARS + 1},}`, "g");

/**
 * A message written by a library that echoes client values whole (graphql-js's coercion and
 * validation messages quote a 900 KB variable twice), capped as our own messages are: every
 * quoted value longer than `clientValue`'s limit is cut like `clientValue` cuts it, so is every
 * longer word (a value echoed unquoted), and the message as a whole is bounded too.
 */
export function capEchoedValues(message: string): string {
  const capped = message.replace(QUOTED, (quoted) => {
    if (quoted.length <= CLIENT_VALUE_MAX_CHARS) return quoted;
    try {
      return clientValue(JSON.parse(quoted));
    } catch {
      return clientValue(quoted.slice(1, -1));
    }
  });
  const words = capped.replace(LONG_WORD, (word) => `${word.slice(0, CLIENT_VALUE_MAX_CHARS - 1)}…`);
  return words.length <= ECHOING_MESSAGE_MAX_CHARS ? words : `${words.slice(0, ECHOING_MESSAGE_MAX_CHARS - 1)}…`;
}
