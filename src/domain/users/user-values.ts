import type { EntityManager } from "typeorm";
import type { RegistrationFormState } from "../../data/forms.data";
import type { ValueTargets } from "../../data/form-submission.data";
import { updatePerson } from "../../data/persons.data";
import { validationFailed } from "../errors";
import { saveFieldValues, type PersonAttributes } from "../forms/field-values";
import { noticesOf, type ValueProblem } from "../forms/value-problems";
import { MAX_KEYS_PER_CALL } from "../forms/form-rules";
import { submitFormsWithValues, type SubmissionSettings } from "../forms/form-submission";
import { counterBucketOf, type RegisteredUser } from "./registration-lookup";
import type { UserOutcome } from "./user-commands";
import { loadUserSummaries } from "./user-summary";
import { recordEvent } from "../events/record-event";

// What create, update and a registrant's own update share: the outcome they answer with, the
// bound on `doc` keys, and saving values with the submissions and events they cause.

export async function outcomeOf(
  em: EntityManager,
  user: { uid: number; groupId: number; cloginId: number },
  notices: string[],
  problems: ValueProblem[] = [],
): Promise<UserOutcome> {
  const summary = (await loadUserSummaries(em, [user.uid])).get(user.uid);
  if (!summary) throw new Error(`registration ${user.uid} vanished inside its own transaction`);
  return { uid: user.uid, groupId: user.groupId, cloginId: user.cloginId, summary, notices, problems };
}

export function assertKeyCount(values: Record<string, unknown> | null): void {
  const count = values ? Object.keys(values).length : 0;
  if (count > MAX_KEYS_PER_CALL) {
    throw validationFailed([
      {
        path: ["values"],
        reason: "TOO_MANY_ITEMS",
        message: `has ${count} members; at most ${MAX_KEYS_PER_CALL} are accepted per call`,
      },
    ]);
  }
}

/**
 * Saves `doc` values, then submits the forms they belong to (unless submit_forms is false).
 * Mapped person fields update the person first, so trigger emails go to the current main email.
 */
export async function saveValuesAndSubmit(
  em: EntityManager,
  user: RegisteredUser,
  forms: ReadonlyMap<number, RegistrationFormState>,
  values: Record<string, unknown>,
  options: {
    submitForms: boolean;
    disableEmailSending: boolean;
    now: Date;
    consumedKeys?: ReadonlySet<string>;
    explicitPerson?: PersonAttributes;
    preread?: Pick<ValueTargets, "fields" | "stored">;
    /** update and updateMe: record user.updated when a value (or, `personChanged`, a person field) changed. */
    updated?: { personChanged: boolean };
  },
): Promise<{ problems: ValueProblem[]; notices: string[]; mainEmail: string | null }> {
  const saved = await saveFieldValues(em, values, {
    registrationId: user.uid,
    projectId: user.groupId,
    cloginId: user.cloginId,
    forms,
    consumedKeys: options.consumedKeys,
    now: options.now,
    preread: options.preread,
  });
  const person: PersonAttributes = { ...saved.person };
  for (const key of Object.keys(options.explicitPerson ?? {}) as (keyof PersonAttributes)[]) delete person[key];
  const mappedPersonChanged = await updatePerson(em, user.cloginId, person);
  if (options.updated && (saved.changedFieldIds.length > 0 || options.updated.personChanged || mappedPersonChanged))
    recordEvent(em, userUpdatedEvent(user, saved.changedFieldIds), options.now);
  const mainEmail = person.mainEmail !== undefined ? person.mainEmail : user.mainEmail;
  const settings: SubmissionSettings = {
    target: { registrationId: user.uid, cloginId: user.cloginId, mainEmail, bucket: counterBucketOf(user) },
    projectId: user.groupId,
    submitForms: options.submitForms,
    disableEmailSending: options.disableEmailSending,
    now: options.now,
  };
  const submissionNotices = await submitFormsWithValues(em, settings, forms, saved);
  return { problems: saved.problems, notices: [...noticesOf(saved.problems), ...submissionNotices], mainEmail };
}

const userUpdatedEvent = (user: RegisteredUser, fieldIds: string[]) => ({
  type: "user.updated" as const,
  groupId: user.groupId,
  data: { clogin_id: user.cloginId, field_ids: fieldIds },
});
