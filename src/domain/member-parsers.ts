import { parseUtcDateTime } from "../common/dates";
import { toFlag, toInteger } from "./commands/members";
import type { Problem, ProblemPath } from "./errors";
import type { ProblemReason } from "./problems";
import { clientValue } from "../common/client-value";

/**
 * Reads the members of a command whose rules depend on each other (a product's type decides which
 * dates and parents it takes) with the shared member parsers' rules and messages. Each read
 * returns the value or records one problem under the member's domain path, so a command reports
 * every broken rule at once.
 */
export class MemberReader {
  readonly problems: Problem[] = [];

  problem(path: ProblemPath, reason: ProblemReason, message: string, value?: unknown): void {
    this.problems.push(value === undefined ? { path, reason, message } : { path, reason, message, value });
  }

  flag(path: ProblemPath, value: unknown, fallback: boolean): boolean {
    // GraphQL hands an omitted nullable member over as null.
    if (value === undefined || value === null) return fallback;
    const flag = toFlag(value);
    if (flag === null)
      this.problem(path, "WRONG_TYPE", `must be true or false (or 1 or 0), got ${clientValue(value)}`, value);
    return flag ?? fallback;
  }

  /** An integer id: a JSON integer or a string of digits. */
  integer(path: ProblemPath, value: unknown, options: { required: boolean }): number | null {
    if (value === undefined || value === null || value === "") {
      if (options.required) this.problem(path, "REQUIRED", "is required");
      return null;
    }
    const parsed = toInteger(value);
    if (parsed === null)
      this.problem(
        path,
        "NOT_AN_INTEGER",
        `must be an integer or a string of digits, got ${clientValue(value)}`,
        value,
      );
    return parsed;
  }

  /** Text of 1–max characters (code points) after trimming; optional texts may be absent or empty. */
  text(path: ProblemPath, value: unknown, options: { required: boolean; max: number }): string | null {
    if (value === undefined || value === null) {
      if (options.required) this.problem(path, "REQUIRED", "is required");
      return null;
    }
    if (typeof value !== "string") {
      this.problem(path, "WRONG_TYPE", `must be a string, got ${clientValue(value)}`, value);
      return null;
    }
    const text = value.trim();
    const length = [...text].length;
    if (length === 0) {
      if (options.required) this.problem(path, "EMPTY", "must not be empty", value);
      return null;
    }
    if (length > options.max) {
      this.problem(path, "TOO_LONG", `must be at most ${options.max} characters, got ${length}`, value);
      return null;
    }
    return text;
  }

  /** An amount ≥ 0 with at most two decimals, as a JSON number or a string; returns cents. */
  money(path: ProblemPath, value: unknown, options: { required: boolean }): number | null {
    if (value === undefined || value === null || value === "") {
      if (options.required) this.problem(path, "REQUIRED", "is required");
      return null;
    }
    const text = typeof value === "number" && Number.isFinite(value) ? String(value) : value;
    const match = typeof text === "string" ? /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(text.trim()) : null;
    if (!match) {
      this.problem(
        path,
        "INVALID_FORMAT",
        `must be an amount of at least 0 with at most 2 decimals, got ${clientValue(value)}`,
        value,
      );
      return null;
    }
    return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
  }

  /** `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS`, UTC; returns the text and its start. */
  date(path: ProblemPath, value: unknown): { text: string; date: Date } | null {
    if (value === undefined || value === null || value === "") return null;
    if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/.test(value.trim())) {
      this.problem(
        path,
        "INVALID_DATE",
        `must be a date as YYYY-MM-DD or YYYY-MM-DD HH:MM:SS, got ${clientValue(value)}`,
        value,
      );
      return null;
    }
    const date = parseUtcDateTime(value.trim());
    if (!date) {
      this.problem(path, "INVALID_DATE", `is not a calendar date, got ${clientValue(value)}`, value);
      return null;
    }
    return { text: value.trim(), date };
  }
}
