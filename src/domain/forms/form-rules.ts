import type { FormAudience, FormLevel } from "../../entities";
import { answerIsEmpty, type FieldAnswer } from "./field-value-codec";

// Rules about which forms a registration gets and when a form is complete enough, each written
// once and used by users create, form submission, the GraphQL reads, the fixture loader and seed.

// Keeps IN lists well below every driver's parameter limit; callers cap their inputs below it.
export const MAX_KEYS_PER_CALL = 1000;

/** Parents and individuals are registered at `parent` level, children of a family at `child` level. */
export type RegistrationLevel = Exclude<FormLevel, "all">;

export const registrationLevel = (connectedTo: number | null): RegistrationLevel =>
  connectedTo === null ? "parent" : "child";

/** The forms a new registration of `level` starts with: initial forms for every level or for that level, in the given order. */
export function initialForms<F extends { initial: boolean; level: FormLevel }>(
  forms: readonly F[],
  level: RegistrationLevel,
): F[] {
  return forms.filter((form) => form.initial && (form.level === "all" || form.level === level));
}

/** The mandatory fields without an answer, in the given order; `answerOf` gives a field's decoded answer. */
export function missingMandatoryFields<F extends { id: string; mandatory: boolean }>(
  fields: readonly F[],
  answerOf: (fieldId: string) => FieldAnswer | undefined,
): F[] {
  return fields.filter((field) => field.mandatory && answerIsEmpty(answerOf(field.id)));
}

/**
 * The forms a registrant may fill, in the given order: not admin-only ones (an organization's
 * internal forms), and of every level or of its registration's level.
 */
export function formsARegistrantFills<F extends { audience: FormAudience; level: FormLevel }>(
  forms: readonly F[],
  level: RegistrationLevel,
): F[] {
  return forms.filter((form) => form.audience !== "admin" && (form.level === "all" || form.level === level));
}
