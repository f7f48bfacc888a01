import { clientValue } from "../../common/client-value";
import { isEmailAddress } from "../../common/email";
import { parseUtcDateTime } from "../../common/dates";
import { matchChoiceAnswers } from "./choice-matching";
import { encodeAnswer, isChoiceType } from "./field-value-codec";
import type { FieldDefinition } from "../../data/forms.data";
import { valueProblem, type ValueProblem, type ValueProblemReason } from "./value-problems";

// How one sent value becomes a stored answer, per field type. A value that cannot be stored is
// not written and the call goes on (contract §4): the reason comes back as a problem (whose
// message is the legacy notice), never as a failure of the call.

/** Stored values are TEXT columns; MySQL's TEXT holds 65,535 bytes. */
export const MAX_VALUE_BYTES = 65535;

export type FieldInput =
  { accepted: true; encoded: string; problems: ValueProblem[] } | { accepted: false; problems: ValueProblem[] };

const NUMBER = /^-?\d+(?:\.\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
// Digits with the usual separators, at least four digits: "+1 (555) 010-2030", "0612345678".
const PHONE = /^\+?[\d\s().-]+$/;

const accepted = (encoded: string): FieldInput => ({ accepted: true, encoded, problems: [] });
const quote = (value: string) => clientValue(value);

/**
 * Interprets `raw`, sent under `key`, for `field`. Text-like fields take a string or a number;
 * choice fields an array of strings (a plain string or number counts as an array of one).
 * An empty string (or an empty array for a choice field) clears the answer.
 */
export function interpretFieldInput(key: string, field: FieldDefinition, raw: unknown): FieldInput {
  const name = quote(key);
  const rejected = (reason: ValueProblemReason, message: string): FieldInput => ({
    accepted: false,
    problems: [valueProblem(key, raw, reason, message)],
  });
  if (isChoiceType(field.fieldType)) return interpretChoice(key, field, raw);
  if (Array.isArray(raw))
    return rejected(
      "WRONG_TYPE",
      `${name} is a ${field.fieldType} field and takes one value, not an array; it was not written.`,
    );
  if (typeof raw !== "string" && typeof raw !== "number") {
    return rejected("WRONG_TYPE", `${name} must be a string, a number or an array of strings; it was not written.`);
  }
  const text = typeof raw === "number" ? String(raw) : raw;
  if (Buffer.byteLength(text, "utf8") > MAX_VALUE_BYTES)
    return rejected("TOO_LONG", `${name} is longer than ${MAX_VALUE_BYTES} bytes; it was not written.`);
  const trimmed = text.trim();
  if (trimmed !== "") {
    switch (field.fieldType) {
      case "number":
        if (!NUMBER.test(trimmed))
          return rejected("NOT_A_NUMBER", `${name}: ${quote(text)} is not a number; it was not written.`);
        return accepted(trimmed);
      case "email":
        if (!isEmailAddress(trimmed))
          return rejected("INVALID_EMAIL", `${name}: ${quote(text)} is not a valid email address; it was not written.`);
        return accepted(trimmed);
      case "date":
        if (!DATE.test(trimmed) || !parseUtcDateTime(trimmed))
          return rejected(
            "INVALID_DATE",
            `${name}: ${quote(text)} is not a date in the form YYYY-MM-DD; it was not written.`,
          );
        return accepted(trimmed);
      case "phone":
        if (!PHONE.test(trimmed) || trimmed.replace(/\D/g, "").length < 4)
          return rejected("INVALID_PHONE", `${name}: ${quote(text)} is not a phone number; it was not written.`);
        return accepted(trimmed);
      default:
        break;
    }
  }
  return accepted(text);
}

function interpretChoice(key: string, field: FieldDefinition, raw: unknown): FieldInput {
  const name = quote(key);
  const list = Array.isArray(raw) ? raw : [raw];
  if (!list.every((item) => typeof item === "string" || typeof item === "number")) {
    const message = `${name} is a choice field and takes an array of strings; it was not written.`;
    return { accepted: false, problems: [valueProblem(key, raw, "WRONG_TYPE", message)] };
  }
  const sent = list.map(String).filter((answer) => answer.trim() !== "");
  if (sent.length === 0) return accepted(encodeAnswer(field.fieldType, []));
  const { matched, unmatched } = matchChoiceAnswers(sent, field.options);
  const label = quote(field.label);
  const problems = unmatched.map((answer) =>
    valueProblem(
      key,
      answer,
      "UNKNOWN_CHOICE",
      `${name}: ${quote(answer)} is not an answer of ${label}; it was dropped.`,
    ),
  );
  if (matched.length === 0) {
    const message = `${name}: none of the sent answers is an answer of ${label}; the field keeps its value.`;
    problems.push(valueProblem(key, raw, "NO_MATCHING_CHOICE", message));
    return { accepted: false, problems };
  }
  if (field.fieldType === "single_choice" && matched.length > 1) {
    const message = `${name} is a single-choice field and takes exactly one answer, got ${matched.length}; it was not written.`;
    problems.push(valueProblem(key, raw, "TOO_MANY_CHOICES", message));
    return { accepted: false, problems };
  }
  return { accepted: true, encoded: encodeAnswer(field.fieldType, matched), problems };
}
