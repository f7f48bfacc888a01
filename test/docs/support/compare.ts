// How a shown answer is compared with the real one (docs/testing.md, "Examples that run").
//
// JSON: the same members and the same values, except that
// - a member "…" (any value) stands for members the page leaves out, and a last array item "…"
//   for items it leaves out;
// - a string with "…" in it matches any text in place of each "…";
// - volatile members (request ids, tokens, secrets, cursors, times of the run: names ending in
//   `_at`/`At`, `token`, `secret`, `cursor`, `request_id`, `event_id`/`eventId`, and `id`, an
//   event's UUID or a GraphQL Node id) need only a
//   value of the same type.
// Text: line by line, "…" matching any text (also across lines), with times, tokens and UUIDs
// masked on both sides.

const VOLATILE_KEY = /(^|_)(at|token|secret|cursor)$|At$|Token$|Secret$|Cursor$|^request_?[iI]d$|^event_?[iI]d$|^id$/;

export interface Difference {
  path: string;
  shown: unknown;
  actual: unknown;
}

function wildcard(shown: string): RegExp {
  const parts = shown.split("…").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join("[\\s\\S]*")}$`);
}

export function compareJson(actual: unknown, shown: unknown, path = "$"): Difference[] {
  if (shown === "…") return [];
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return [{ path, shown, actual }];
    const open = shown.length > 0 && shown[shown.length - 1] === "…";
    const items = open ? shown.slice(0, -1) : shown;
    if (open ? actual.length < items.length : actual.length !== items.length)
      return [
        { path: `${path}.length`, shown: open ? `at least ${items.length}` : items.length, actual: actual.length },
      ];
    return items.flatMap((item, index) => compareJson(actual[index], item, `${path}[${index}]`));
  }
  if (shown !== null && typeof shown === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return [{ path, shown, actual }];
    const shownKeys = Object.keys(shown).filter((key) => key !== "…");
    const open = "…" in shown;
    const actualKeys = Object.keys(actual);
    const missing = shownKeys.filter((key) => !(key in actual));
    const extra = open ? [] : actualKeys.filter((key) => !(key in shown));
    const differences: Difference[] = [];
    if (missing.length > 0 || extra.length > 0)
      differences.push({ path: `${path} members`, shown: { missing }, actual: { extra } });
    for (const key of shownKeys) {
      if (!(key in actual)) continue;
      const value = (actual as Record<string, unknown>)[key];
      const expected = (shown as Record<string, unknown>)[key];
      if (VOLATILE_KEY.test(key) && expected !== null && typeof expected !== "object") {
        if (typeof value !== typeof expected)
          differences.push({ path: `${path}.${key}`, shown: expected, actual: value });
        continue;
      }
      differences.push(...compareJson(value, expected, `${path}.${key}`));
    }
    return differences;
  }
  if (typeof shown === "string" && typeof actual === "string" && shown.includes("…"))
    return wildcard(shown).test(actual) ? [] : [{ path, shown, actual }];
  return Object.is(actual, shown) ? [] : [{ path, shown, actual }];
}

/** Times, tokens, UUIDs and hex digests replaced by a mark, so two runs' texts compare. */
export function maskVolatile(text: string): string {
  return text
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>")
    .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, "<uuid>")
    .replace(/\b[0-9a-f]{64}\b/g, "<hex>")
    .replace(/(?<![\w-])[A-Za-z0-9_-]{43}(?![\w-])/g, "<token>");
}

/** Whether the shown text matches the actual one (line ends and trailing white space ignored). */
export function textMatches(actual: string, shown: string): boolean {
  const tidy = (text: string) =>
    maskVolatile(text)
      .split("\n")
      .map((line) => line.trimEnd())
      .join("\n")
      .trim();
  return wildcard(tidy(shown)).test(tidy(actual));
}
