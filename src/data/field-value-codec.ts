import { CHOICE_FIELD_TYPES, type FieldType } from "../entities";

// How answers and choice options are stored: a storage format, so it lives with the SQL that reads
// and writes them; the domain re-exports it (src/domain/forms/field-value-codec.ts).

/** A stored answer as clients see it: text, or the chosen option values of a choice field. */
export type FieldAnswer = string | string[];

export const isChoiceType = (type: FieldType) => CHOICE_FIELD_TYPES.includes(type);

/** Choice answers are stored as a JSON array of option values; anything else as plain text. */
export function encodeAnswer(type: FieldType, answer: FieldAnswer): string {
  return isChoiceType(type) ? JSON.stringify(Array.isArray(answer) ? answer : [answer]) : String(answer);
}

export function decodeAnswer(type: FieldType, stored: string): FieldAnswer {
  if (!isChoiceType(type)) return stored;
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.map(String) : [String(parsed)];
  } catch {
    return [stored];
  }
}

export function parseChoiceOptions(stored: string | null): string[] {
  if (!stored) return [];
  const parsed: unknown = JSON.parse(stored);
  return Array.isArray(parsed) ? parsed.map(String) : [];
}
