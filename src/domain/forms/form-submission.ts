import type { EntityManager } from "typeorm";
import {
  readProjectFormIds,
  updateRegistrationForms,
  type FieldDefinition,
  type RegistrationFormState,
} from "../../data/forms.data";
import { applyTriggerEffects, planTriggerEffects, type TriggerTarget } from "../triggers/trigger-runner";
import { inTriggerOrder, type PendingTrigger } from "../../data/triggers.data";
import { readFormRules, readFormSetWithMandatory, type FormRules } from "../../data/form-submission.data";
import { decodeAnswer } from "./field-value-codec";
import type { SavedValues } from "./field-values";
import { missingMandatoryFields } from "./form-rules";
import { toInteger } from "../commands/members";
import { clientValue } from "../../common/client-value";
import { formEvents, recordEvents } from "../events/record-event";

// Submitting forms (contract §4, §5). A submission after saving values behaves like a
// browser: it goes through only when every mandatory field of the form holds a value, then
// completes the form and runs its triggers. Marking complete is an explicit override: empty
// mandatory fields do not block it, they are reported.

export interface SubmissionSettings {
  target: TriggerTarget;
  projectId: number;
  submitForms: boolean;
  disableEmailSending: boolean;
  now: Date;
}

export interface SkippedFormId {
  formId: string;
  reason: string;
}

export interface MarkedForms {
  markedComplete: number[];
  skipped: SkippedFormId[];
  notices: string[];
}

/** What checking a mandatory field needs to know of it. */
type MandatoryFieldLike = Pick<FieldDefinition, "id" | "formId" | "label" | "fieldType" | "mandatory">;

/**
 * The first mandatory field without an answer of each form that has one, by form id, of the
 * mandatory fields given (in field order) with their stored answers (encoded; null: none).
 */
export function firstEmptyMandatory<F extends MandatoryFieldLike>(
  mandatory: readonly { field: F; value: string | null }[],
): Map<number, F> {
  const answers = new Map(
    mandatory.flatMap(({ field, value }) => (value === null ? [] : [[field.id, decodeAnswer(field.fieldType, value)]])),
  );
  const firstEmpty = new Map<number, F>();
  const missing = missingMandatoryFields(
    mandatory.map(({ field }) => field),
    (fieldId) => answers.get(fieldId),
  );
  for (const field of missing) if (!firstEmpty.has(field.formId)) firstEmpty.set(field.formId, field);
  return firstEmpty;
}

/**
 * The forms a submission after saving values submits (contract §4): those that received a value
 * and, unless `resubmit` says so, were never submitted, whose mandatory fields all hold an answer
 * (`firstEmpty`, from firstEmptyMandatory).
 */
export function formsToSubmit(candidates: readonly number[], firstEmpty: ReadonlyMap<number, unknown>): number[] {
  return candidates.filter((formId) => !firstEmpty.has(formId));
}

/**
 * Submits the forms that received values: a form is submitted when one of its values changed or
 * it was never submitted, so a repeated call with the same values submits nothing again. The rules
 * of the candidate forms (mandatory fields, unfired triggers) are read in one statement, only when
 * there is a candidate.
 */
export async function submitFormsWithValues(
  em: EntityManager,
  settings: SubmissionSettings,
  forms: ReadonlyMap<number, RegistrationFormState>,
  saved: SavedValues & { answers: ReadonlyMap<string, string> },
): Promise<string[]> {
  if (!settings.submitForms) return [];
  const candidates = saved.formsWithValues.filter(
    (formId) => saved.changedForms.has(formId) || forms.get(formId)?.submittedAt == null,
  );
  if (candidates.length === 0) return [];
  const registrationId = settings.target.registrationId;
  // Read after the values were written: the stored answers already hold them.
  const rules = await readFormRules(em, registrationId, candidates);
  const submitted = formsToSubmit(
    candidates,
    firstEmptyMandatory(candidates.flatMap((formId) => rules.get(formId)?.mandatory ?? [])),
  );
  const now = settings.now;
  await updateRegistrationForms(
    em,
    registrationId,
    submitted.filter((formId) => !forms.get(formId)?.completed),
    { completed: true, completedAt: now, submittedAt: now },
  );
  await updateRegistrationForms(
    em,
    registrationId,
    submitted.filter((formId) => forms.get(formId)?.completed),
    { submittedAt: now },
  );
  recordEvents(
    em,
    submissionEvents(settings, submitted, (formId) => !forms.get(formId)?.completed),
    now,
  );
  const effects = await fireTriggers(em, unfiredTriggersOf(rules, submitted), settings, new Set(forms.keys()));
  return effects.notices;
}

/** The unfired triggers of the forms, in trigger order, from their rules. */
const unfiredTriggersOf = (rules: ReadonlyMap<number, FormRules>, formIds: readonly number[]) =>
  formIds.flatMap((formId) => rules.get(formId)?.unfiredTriggers ?? []).sort(inTriggerOrder);

/** Plans and writes what known unfired triggers do. */
async function fireTriggers(
  em: EntityManager,
  triggers: PendingTrigger[],
  settings: SubmissionSettings,
  formSet: Set<number>,
) {
  const planned = planTriggerEffects(triggers, settings.target, formSet, settings);
  await applyTriggerEffects(em, planned, settings.target, settings);
  return planned.effects;
}

/** form.submitted for each submitted form, form.completed for those it completed. */
export const submissionEvents = (
  settings: SubmissionSettings,
  submitted: number[],
  completesNow: (formId: number) => boolean,
) =>
  formEvents("form.submitted", settings.projectId, settings.target.cloginId, submitted).concat(
    formEvents("form.completed", settings.projectId, settings.target.cloginId, submitted.filter(completesNow)),
  );

const asSent = (value: unknown) => (typeof value === "string" ? value : (JSON.stringify(value) ?? String(value)));

/** A `mark_forms_complete` id as sent (a string, for `skipped`) and as a form id when it is one. */
export interface SentFormId {
  sent: string;
  formId: number | null;
}

/** The ids of a `mark_forms_complete` list in the order sent, each once (`"304"` and `304` are one). */
export function sentFormIds(formIds: readonly unknown[]): SentFormId[] {
  const seen = new Set<string>();
  const ids: SentFormId[] = [];
  for (const sentValue of formIds) {
    const formId = toInteger(sentValue);
    const sent = asSent(sentValue);
    const key = formId === null ? `sent:${sent}` : `id:${formId}`;
    if (seen.has(key)) continue;
    seen.add(key);
    ids.push({ sent, formId });
  }
  return ids;
}

/** The `skipped` reason of an entry that is no form id at all. */
export const notAFormId = (sent: string) => `${clientValue(sent)} is not a form id.`;

/**
 * The sent ids split into those of the registration's form set (marked) and the others
 * (skipped, in the order sent, each with why: one look-up tells a form of another set from no
 * form of the project).
 */
async function sortSentForms(
  em: EntityManager,
  settings: SubmissionSettings,
  formSet: ReadonlySet<number>,
  formIds: unknown[],
): Promise<Pick<MarkedForms, "markedComplete" | "skipped">> {
  const markedComplete: number[] = [];
  const skippedInOrder: SentFormId[] = [];
  for (const entry of sentFormIds(formIds)) {
    if (entry.formId !== null && formSet.has(entry.formId)) markedComplete.push(entry.formId);
    else skippedInOrder.push(entry);
  }
  const outsideSet = skippedInOrder.flatMap((entry) => (entry.formId === null ? [] : [entry.formId]));
  const projectForms = await readProjectFormIds(em, settings.projectId, outsideSet);
  const skipped = skippedInOrder.map(({ sent, formId }) => ({
    formId: sent,
    reason:
      formId === null
        ? notAFormId(sent)
        : projectForms.has(formId)
          ? `Form ${formId} is not in the form set of user ${settings.target.cloginId}.`
          : `Form ${formId} is not a form of project ${settings.projectId}.`,
  }));
  return { markedComplete, skipped };
}

/** A notice per marked form that still has an empty mandatory field, naming the first. */
function emptyMandatoryNotices(
  forms: { form: { id: number; name: string | null } }[],
  markedComplete: number[],
  mandatory: ReadonlyMap<number, FormRules["mandatory"]>,
): string[] {
  const marked = new Set(markedComplete);
  const firstEmpty = firstEmptyMandatory(markedComplete.flatMap((formId) => mandatory.get(formId) ?? []));
  return forms.flatMap(({ form }) => {
    const empty = firstEmpty.get(form.id);
    return marked.has(form.id) && empty
      ? [
          `Form ${form.id} (${form.name}) was marked complete with empty mandatory fields; the first is ${empty.id} (${empty.label}).`,
        ]
      : [];
  });
}

/**
 * Marks forms of the registration complete. `selection` is `all` (the current form set, read
 * now, after any values were saved) or the ids as sent. Already complete forms are listed again
 * and left as they are; newly completed ones are submitted unless `submit_forms` is false.
 */
export async function markFormsComplete(
  em: EntityManager,
  settings: SubmissionSettings,
  selection: { all: true } | { formIds: unknown[] },
): Promise<MarkedForms> {
  const registrationId = settings.target.registrationId;
  const cloginId = settings.target.cloginId;
  const { formSet: forms, mandatory } = await readFormSetWithMandatory(em, registrationId);
  const formSet = new Set(forms.map((entry) => entry.form.id));
  const sorted =
    "all" in selection
      ? { markedComplete: [...formSet], skipped: [] }
      : await sortSentForms(em, settings, formSet, selection.formIds);
  const result: MarkedForms = { ...sorted, notices: [] };

  const marked = new Set(result.markedComplete);
  const newlyCompleted = forms
    .filter((entry) => marked.has(entry.form.id) && !entry.completed)
    .map((entry) => entry.form.id);
  const now = settings.now;
  await updateRegistrationForms(
    em,
    registrationId,
    newlyCompleted,
    settings.submitForms
      ? { completed: true, completedAt: now, submittedAt: now }
      : { completed: true, completedAt: now },
  );

  recordEvents(
    em,
    formEvents("form.completed", settings.projectId, cloginId, newlyCompleted).concat(
      settings.submitForms ? formEvents("form.submitted", settings.projectId, cloginId, newlyCompleted) : [],
    ),
    now,
  );
  result.notices.push(...emptyMandatoryNotices(forms, result.markedComplete, mandatory));

  if (settings.submitForms && newlyCompleted.length > 0) {
    const rules = await readFormRules(em, registrationId, newlyCompleted);
    const effects = await fireTriggers(em, unfiredTriggersOf(rules, newlyCompleted), settings, formSet);
    result.notices.push(...effects.notices);
  }
  return result;
}
