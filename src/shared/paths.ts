/** `["doc", "email_list", 0, "to"]` → `doc.email_list[0].to`, the path style of every error we report. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path
    .map((part, index) => (typeof part === "number" ? `[${part}]` : `${index === 0 ? "" : "."}${String(part)}`))
    .join("");
}
