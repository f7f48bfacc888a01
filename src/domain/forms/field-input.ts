import { clientValue } from "../../common/client-value";
import { isEmailAddress } from "../../common/email";
import { parseUtcDateTime } from "../../common/dates";
import { matchChoiceAnswers } from "./choice-matching";
import { encodeAnswer, isChoiceType } from "./field-value-codec";
import type { FieldDefinition } from "../../data/forms.data";

// How one sent value becomes a stored answer, per field type. A value that cannot be stored is
// not written and the call goes on (contract §4): the reason comes back as a notice, never as a
// failure of the call.

/** Stored values are TEXT columns; MySQL's TEXT holds 65,535 bytes. */
export const MAX_VALUE_BYTES = 65535;

export type FieldInput =
  { accepted: true; encoded: string; notices: string[] } | { accepted: false; notices: string[] };

const NUMBER = /^-?\d+(?:\.\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
// Digits with the usual separators, at least four digits: "+1 (555) 010-2030", "0612345678".
const PHONE = /^\+?[\d\s().-]+$/;

const rejected = (notice: string): FieldInput => ({ accepted: false, notices: [notice] });
const quote = (value: string) => clientValue(value);

/**
 * Interprets `raw`, sent under `key`, for `field`. Text-like fields take a string or a number;
 * choice fields an array of strings (a plain string or number counts as an array of one).
 * An empty string (or an empty array for a choice field) clears the answer.
 */
export function interpretFieldInput(key: string, field: FieldDefinition, raw: unknown): FieldInput {
  const name = quote(key);
  if (isChoiceType(field.fieldType)) return interpretChoice(name, field, raw);
  if (Array.isArray(raw))
    return rejected(`${name} is a ${field.fieldType} field and takes one value, not an array; it was not written.`);
  if (typeof raw !== "string" && typeof raw !== "number") {
    return rejected(`${name} must be a string, a number or an array of strings; it was not written.`);
  }
  const text = typeof raw === "number" ? String(raw) : raw;
  if (Buffer.byteLength(text, "utf8") > MAX_VALUE_BYTES)
    return rejected(`${name} is longer than ${MAX_VALUE_BYTES} bytes; it was not written.`);
  const trimmed = text.trim();
  if (trimmed !== "") {
    switch (field.fieldType) {
      case "number":
        if (!NUMBER.test(trimmed)) return rejected(`${name}: ${quote(text)} is not a number; it was not written.`);
        return { accepted: true, encoded: trimmed, notices: [] };
      case "email":
        if (!isEmailAddress(trimmed))
          return rejected(`${name}: ${quote(text)} is not a valid email address; it was not written.`);
        return { accepted: true, encoded: trimmed, notices: [] };
      case "date":
        if (!DATE.test(trimmed) || !parseUtcDateTime(trimmed))
          return rejected(`${name}: ${quote(text)} is not a date in the form YYYY-MM-DD; it was not written.`);
        return { accepted: true, encoded: trimmed, notices: [] };
      case "phone":
        if (!PHONE.test(trimmed) || trimmed.replace(/\D/g, "").length < 4)
          return rejected(`${name}: ${quote(text)} is not a phone number; it was not written.`);
        return { accepted: true, encoded: trimmed, notices: [] };
      default:
        break;
    }
  }
  return { accepted: true, encoded: text, notices: [] };
}

function interpretChoice(name: string, field: FieldDefinition, raw: unknown): FieldInput {
  const list = Array.isArray(raw) ? raw : [raw];
  if (!list.every((item) => typeof item === "string" || typeof item === "number")) {
    return rejected(`${name} is a choice field and takes an array of strings; it was not written.`);
  }
  const sent = list.map(String).filter((answer) => answer.trim() !== "");
  if (sent.length === 0) return { accepted: true, encoded: encodeAnswer(field.fieldType, []), notices: [] };
  const { matched, unmatched } = matchChoiceAnswers(sent, field.options);
  const label = quote(field.label);
  const notices = unmatched.map((answer) => `${name}: ${quote(answer)} is not an answer of ${label}; it was dropped.`);
  if (matched.length === 0) {
    notices.push(`${name}: none of the sent answers is an answer of ${label}; the field keeps its value.`);
    return { accepted: false, notices };
  }
  if (field.fieldType === "single_choice" && matched.length > 1) {
    notices.push(
      `${name} is a single-choice field and takes exactly one answer, got ${matched.length}; it was not written.`,
    );
    return { accepted: false, notices };
  }
  return { accepted: true, encoded: encodeAnswer(field.fieldType, matched), notices };
}
