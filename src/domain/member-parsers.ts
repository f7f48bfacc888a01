import { parseUtcDateTime } from "../shared/dates";
import { validationFailed } from "./errors";

/** A problem under a member's wire path (`doc.cat_id`). */
export interface MemberProblem {
  path: string;
  message: string;
}

/** VALIDATION_FAILED from wire-path problems, in the shape of src/domain/errors.ts (paths as segments). */
export const failedWithMemberProblems = (problems: readonly MemberProblem[]) =>
  validationFailed(problems.map((problem) => ({ path: problem.path.split("."), message: problem.message })));

// Member readers shared by the domain commands that check raw client values themselves (the
// legacy clients send ids as digit strings and flags as 0/1 or "true"). Each returns the value
// or pushes one problem under the member's wire path, so a command reports every broken rule.

/** A client value in a message: JSON, cut short so a huge input is not echoed back. */
export function shown(value: unknown, max = 40): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

const FLAG_VALUES = new Map<unknown, boolean>([
  [true, true],
  [false, false],
  [1, true],
  [0, false],
  ["true", true],
  ["false", false],
  ["1", true],
  ["0", false],
]);

export const FLAG_EXPECTED = 'true or false (also 1/0, "true"/"false", "1"/"0")';

/** Contract §17: every boolean member accepts true/false, 1/0, "true"/"false" and "1"/"0". */
export function parseFlag(value: unknown): boolean | null {
  return FLAG_VALUES.get(value) ?? null;
}

export class MemberReader {
  readonly problems: MemberProblem[] = [];

  problem(path: string, message: string): void {
    this.problems.push({ path, message });
  }

  flag(path: string, value: unknown, fallback: boolean): boolean {
    if (value === undefined || value === null) return fallback;
    const flag = parseFlag(value);
    if (flag === null) this.problem(path, `must be ${FLAG_EXPECTED}, got ${shown(value)}`);
    return flag ?? fallback;
  }

  /** An integer id: a JSON integer or a string of digits. */
  integer(path: string, value: unknown, options: { required: boolean }): number | null {
    if (value === undefined || value === null || value === "") {
      if (options.required) this.problem(path, "is required");
      return null;
    }
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
    if (typeof value === "string" && /^\d{1,15}$/.test(value)) return Number(value);
    this.problem(path, `must be an integer or a string of digits, got ${shown(value)}`);
    return null;
  }

  /** Text of 1–max characters (code points) after trimming; optional texts may be absent or empty. */
  text(path: string, value: unknown, options: { required: boolean; max: number }): string | null {
    if (value === undefined || value === null) {
      if (options.required) this.problem(path, "is required");
      return null;
    }
    if (typeof value !== "string") {
      this.problem(path, `must be a string, got ${shown(value)}`);
      return null;
    }
    const text = value.trim();
    const length = [...text].length;
    if (length === 0) {
      if (options.required) this.problem(path, "must not be empty");
      return null;
    }
    if (length > options.max) {
      this.problem(path, `must be at most ${options.max} characters, got ${length}`);
      return null;
    }
    return text;
  }

  /** An amount ≥ 0 with at most two decimals, as a JSON number or a string; returns cents. */
  money(path: string, value: unknown, options: { required: boolean }): number | null {
    if (value === undefined || value === null || value === "") {
      if (options.required) this.problem(path, "is required");
      return null;
    }
    const text = typeof value === "number" && Number.isFinite(value) ? String(value) : value;
    const match = typeof text === "string" ? /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(text.trim()) : null;
    if (!match) {
      this.problem(path, `must be an amount of at least 0 with at most 2 decimals, got ${shown(value)}`);
      return null;
    }
    return Number(match[1]) * 100 + Number((match[2] ?? "").padEnd(2, "0"));
  }

  /** `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS`, UTC; returns the text and its start. */
  date(path: string, value: unknown): { text: string; date: Date } | null {
    if (value === undefined || value === null || value === "") return null;
    if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2})?$/.test(value.trim())) {
      this.problem(path, `must be a date as YYYY-MM-DD or YYYY-MM-DD HH:MM:SS, got ${shown(value)}`);
      return null;
    }
    const date = parseUtcDateTime(value.trim());
    if (!date) {
      this.problem(path, `is not a calendar date, got ${shown(value)}`);
      return null;
    }
    return { text: value.trim(), date };
  }
}

/** One sentence naming every problem, then the problems one by one (the REST envelope's form). */
export function summaryOf(subject: string, problems: readonly MemberProblem[]): string {
  return `${subject}: ${problems.map((p) => `${p.path} ${p.message}`).join("; ")}.`;
}
