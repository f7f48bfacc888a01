import { In, type EntityManager } from "typeorm";
import { RegistrationForm } from "../../entities";
import { runFormTriggers, type TriggerTarget } from "../triggers/trigger-runner";
import { answerIsEmpty, decodeAnswer } from "./field-value-codec";
import type { SavedValues } from "./field-values";
import {
  loadMandatoryFieldStates,
  loadProjectFormIds,
  loadRegisteredForms,
  type MandatoryFieldState,
  type RegisteredForm,
} from "./form-queries";
import { clientValue } from "../../shared/client-value";

// Submitting forms (contract §4, §5; seed §3). A submission after saving values behaves like a
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

function firstEmptyMandatoryByForm(states: readonly MandatoryFieldState[]): Map<number, MandatoryFieldState> {
  const firstEmpty = new Map<number, MandatoryFieldState>();
  for (const state of states) {
    if (firstEmpty.has(state.formId)) continue;
    if (state.value === null || answerIsEmpty(decodeAnswer(state.fieldType, state.value)))
      firstEmpty.set(state.formId, state);
  }
  return firstEmpty;
}

async function setFormState(
  em: EntityManager,
  registrationId: number,
  formIds: number[],
  state: Partial<RegistrationForm>,
): Promise<void> {
  if (formIds.length > 0) await em.update(RegistrationForm, { registrationId, formId: In(formIds) }, state);
}

/**
 * Submits the forms that received values: a form is submitted when one of its values changed or
 * it was never submitted, so a repeated call with the same values submits nothing again.
 */
export async function submitFormsWithValues(
  em: EntityManager,
  settings: SubmissionSettings,
  forms: ReadonlyMap<number, RegisteredForm>,
  saved: SavedValues,
): Promise<string[]> {
  if (!settings.submitForms) return [];
  const candidates = saved.formsWithValues.filter(
    (formId) => saved.changedForms.has(formId) || forms.get(formId)?.submittedAt == null,
  );
  if (candidates.length === 0) return [];
  const registrationId = settings.target.registrationId;
  const incomplete = firstEmptyMandatoryByForm(await loadMandatoryFieldStates(em, registrationId, candidates));
  const submitted = candidates.filter((formId) => !incomplete.has(formId));
  const now = settings.now;
  await setFormState(
    em,
    registrationId,
    submitted.filter((formId) => !forms.get(formId)?.completed),
    { completed: true, completedAt: now, submittedAt: now },
  );
  await setFormState(
    em,
    registrationId,
    submitted.filter((formId) => forms.get(formId)?.completed),
    { submittedAt: now },
  );
  const effects = await runFormTriggers(em, settings.target, submitted, new Set(forms.keys()), settings);
  return effects.notices;
}

const DIGITS = /^\d{1,15}$/;
const asFormId = (value: unknown): number | null => {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === "string" && DIGITS.test(value)) return Number(value);
  return null;
};
const asSent = (value: unknown) => (typeof value === "string" ? value : (JSON.stringify(value) ?? String(value)));

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
  const forms = await loadRegisteredForms(em, registrationId);
  const byId = new Map(forms.map((form) => [form.formId, form]));
  const result: MarkedForms = { markedComplete: [], skipped: [], notices: [] };

  if ("all" in selection) {
    result.markedComplete = forms.map((form) => form.formId);
  } else {
    const seen = new Set<string>();
    // Skipped ids keep the order they were sent in; ids outside the set need one look-up to say why.
    const skippedInOrder: { sent: string; formId: number | null }[] = [];
    for (const sentValue of selection.formIds) {
      const formId = asFormId(sentValue);
      const sent = asSent(sentValue);
      const key = formId === null ? `sent:${sent}` : `id:${formId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (formId !== null && byId.has(formId)) result.markedComplete.push(formId);
      else skippedInOrder.push({ sent, formId });
    }
    const outsideSet = skippedInOrder.flatMap((entry) => (entry.formId === null ? [] : [entry.formId]));
    const projectForms = await loadProjectFormIds(em, settings.projectId, outsideSet);
    result.skipped = skippedInOrder.map(({ sent, formId }) => ({
      formId: sent,
      reason:
        formId === null
          ? `${clientValue(sent)} is not a form id.`
          : projectForms.has(formId)
            ? `Form ${formId} is not in the form set of user ${cloginId}.`
            : `Form ${formId} is not a form of project ${settings.projectId}.`,
    }));
  }

  const marked = new Set(result.markedComplete);
  const newlyCompleted = forms.filter((form) => marked.has(form.formId) && !form.completed).map((form) => form.formId);
  const now = settings.now;
  await setFormState(
    em,
    registrationId,
    newlyCompleted,
    settings.submitForms
      ? { completed: true, completedAt: now, submittedAt: now }
      : { completed: true, completedAt: now },
  );

  const firstEmpty = firstEmptyMandatoryByForm(
    await loadMandatoryFieldStates(em, registrationId, result.markedComplete),
  );
  for (const form of forms) {
    const empty = firstEmpty.get(form.formId);
    if (marked.has(form.formId) && empty) {
      result.notices.push(
        `Form ${form.formId} (${form.name}) was marked complete with empty mandatory fields; the first is ${empty.fieldId} (${empty.label}).`,
      );
    }
  }

  if (settings.submitForms && newlyCompleted.length > 0) {
    const effects = await runFormTriggers(em, settings.target, newlyCompleted, new Set(byId.keys()), settings);
    result.notices.push(...effects.notices);
  }
  return result;
}
