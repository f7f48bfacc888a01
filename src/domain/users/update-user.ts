import type { EntityManager } from "typeorm";
import { readValueTargets } from "../../data/form-submission.data";
import { updatePerson } from "../../data/persons.data";
import type { RequestContext } from "../context";
import { authorize } from "../authorize";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import { validationFailed } from "../errors";
import type { PersonAttributes } from "../forms/field-values";
import { noticesOf, valueProblem, type ValueProblem, type ValueProblemReason } from "../forms/value-problems";
import { MAX_KEYS_PER_CALL } from "../forms/form-rules";
import { markFormsComplete, notAFormId, sentFormIds } from "../forms/form-submission";
import { inTransaction } from "../transaction";
import { isEmailAddress } from "../../common/email";
import { PERSON_FIELD_ATTRIBUTES, PERSON_FIELD_MAX_LENGTH } from "./person-fields";
import { connectedToOf, counterBucketOf, requireOwnedRegistration, type RegisteredUser } from "./registration-lookup";
import { UpdateUserCommand, type NotRegisteredUpdateOutcome, type UpdateUserOutcome } from "./user-commands";
import { assertKeyCount, outcomeOf, saveValuesAndSubmit } from "./user-values";

// users `update` (contract §17): `doc` values, the person's own fields and mark_forms_complete,
// in one transaction.

/**
 * Reads the person keys of an update's values: trimmed, empty names cleared, main_email validated.
 * A value that cannot be written is left out with a problem, as update does for any field value.
 */
function readPersonKeysOfUpdate(values: Record<string, unknown> | null): {
  attributes: PersonAttributes;
  problems: ValueProblem[];
  refused: Set<string>;
} {
  const attributes: PersonAttributes = {};
  const problems: ValueProblem[] = [];
  const refused = new Set<string>();
  // The person's own fields are accepted by `update` in every project (contract §17).
  for (const [key, attribute] of Object.entries(PERSON_FIELD_ATTRIBUTES)) {
    if (!values || !(key in values)) continue;
    const max = PERSON_FIELD_MAX_LENGTH[attribute];
    const value = values[key];
    const text = typeof value === "string" ? value.trim() : null;
    let problem: [ValueProblemReason, string] | null = null;
    if (text === null) problem = ["WRONG_TYPE", "is not text"];
    else if (text.length > max) problem = ["TOO_LONG", `is longer than ${max} characters`];
    else if (attribute === "mainEmail" && !isEmailAddress(text))
      problem = ["INVALID_EMAIL", "is not a valid email address"];
    if (problem !== null) {
      refused.add(key);
      problems.push(valueProblem(key, value, problem[0], `"${key}" ${problem[1]}; it was not written.`));
    } else attributes[attribute] = text === "" ? null : text;
  }
  return { attributes, problems, refused };
}

/**
 * users `update`: `doc` values first (with their submissions and triggers), then
 * `mark_forms_complete`, in one transaction. Values that cannot be written are reported in
 * `problems` (and, as text, in `notices`). Throws FORBIDDEN, VALIDATION_FAILED (no doc and no mark_forms_complete; a
 * connected_to that is not the user's) or USER_NOT_FOUND.
 */
export function updateUser(
  ctx: RequestContext,
  draft: CommandDraft<typeof UpdateUserCommand>,
): Promise<UpdateUserOutcome> {
  return runUpdate(ctx, draft, false);
}

/**
 * `update` as the original interface defines it (seed §7, case 1): for someone not registered in
 * the project (no such person, or a person of the organization registered elsewhere) the call is
 * accepted, writes nothing and says so, instead of USER_NOT_FOUND. Every other outcome and
 * failure is `updateUser`'s.
 */
export function updateUserIfRegistered(
  ctx: RequestContext,
  draft: CommandDraft<typeof UpdateUserCommand>,
): Promise<UpdateUserOutcome | NotRegisteredUpdateOutcome> {
  return runUpdate(ctx, draft, true);
}

function notRegisteredOutcome(cmd: UpdateUserCommand, valuesSent: boolean): NotRegisteredUpdateOutcome {
  const where = `user ${cmd.cloginId} is not registered in project ${cmd.groupId}`;
  const skipped =
    cmd.markFormsComplete && "formIds" in cmd.markFormsComplete
      ? sentFormIds(cmd.markFormsComplete.formIds).map(({ sent, formId }) => ({
          formId: sent,
          reason: formId === null ? notAFormId(sent) : `Form ${formId} was not marked complete: ${where}.`,
        }))
      : [];
  return {
    notRegistered: true,
    groupId: cmd.groupId,
    cloginId: cmd.cloginId,
    connectedTo: cmd.connectedTo ?? cmd.cloginId,
    valuesSent,
    markFormsComplete: cmd.markFormsComplete ? { markedComplete: [], skipped } : null,
    notices: [`User ${cmd.cloginId} is not registered in project ${cmd.groupId}; nothing was written.`],
  };
}

/** The command's shape beyond its members: values or forms to mark, and not too many of either. */
function assertUpdateShape(cmd: UpdateUserCommand): void {
  if (cmd.values === null && cmd.markFormsComplete === null) {
    throw validationFailed([
      { path: ["values"], reason: "REQUIRED", message: "is required unless forms are marked complete" },
    ]);
  }
  assertKeyCount(cmd.values);
  if (
    cmd.markFormsComplete &&
    "formIds" in cmd.markFormsComplete &&
    cmd.markFormsComplete.formIds.length > MAX_KEYS_PER_CALL
  ) {
    const message = `lists ${cmd.markFormsComplete.formIds.length} ids; at most ${MAX_KEYS_PER_CALL} are accepted per call`;
    throw validationFailed([{ path: ["markFormsComplete"], reason: "TOO_MANY_ITEMS", message }]);
  }
}

/**
 * The sent values saved into the registration's forms (and its forms submitted when asked);
 * the person's own keys were written already, so they are consumed here, not refused.
 */
async function saveSentValues(
  em: EntityManager,
  user: RegisteredUser,
  values: Record<string, unknown>,
  cmd: UpdateUserCommand,
  written: { person: PersonAttributes; personChanged: boolean; now: Date },
) {
  const keys = Object.keys(values).filter((key) => !key.startsWith("_"));
  const targets = await readValueTargets(em, user.uid, user.groupId, keys);
  const forms = new Map(targets.formSet.map((entry) => [entry.form.id, entry]));
  return saveValuesAndSubmit(em, user, forms, values, {
    preread: targets,
    submitForms: cmd.submitForms,
    disableEmailSending: cmd.disableEmailSending,
    now: written.now,
    consumedKeys: new Set(Object.keys(PERSON_FIELD_ATTRIBUTES).filter((key) => key in values)),
    explicitPerson: written.person,
    updated: { personChanged: written.personChanged },
  });
}

/** `mark_forms_complete` of an update, after its values were saved (`mainEmail`: as they left it). */
function markSentFormsComplete(
  em: EntityManager,
  user: RegisteredUser,
  cmd: UpdateUserCommand,
  selection: NonNullable<UpdateUserCommand["markFormsComplete"]>,
  at: { mainEmail: string | null; now: Date },
) {
  return markFormsComplete(
    em,
    {
      target: {
        registrationId: user.uid,
        cloginId: user.cloginId,
        mainEmail: at.mainEmail,
        bucket: counterBucketOf(user),
      },
      projectId: user.groupId,
      submitForms: cmd.submitForms,
      disableEmailSending: cmd.disableEmailSending,
      now: at.now,
    },
    selection,
  );
}

async function runUpdate(
  ctx: RequestContext,
  draft: CommandDraft<typeof UpdateUserCommand>,
  acceptNotRegistered: false,
): Promise<UpdateUserOutcome>;
async function runUpdate(
  ctx: RequestContext,
  draft: CommandDraft<typeof UpdateUserCommand>,
  acceptNotRegistered: boolean,
): Promise<UpdateUserOutcome | NotRegisteredUpdateOutcome>;
async function runUpdate(
  ctx: RequestContext,
  draft: CommandDraft<typeof UpdateUserCommand>,
  acceptNotRegistered: boolean,
): Promise<UpdateUserOutcome | NotRegisteredUpdateOutcome> {
  const cmd = parseCommand(UpdateUserCommand, draft);
  authorize(ctx, "users.update", { groupId: cmd.groupId });
  const person = readPersonKeysOfUpdate(cmd.values);
  const values =
    cmd.values === null
      ? null
      : Object.fromEntries(Object.entries(cmd.values).filter(([key]) => !person.refused.has(key)));

  const valuesSent = values !== null && Object.keys(values).length > 0;

  return inTransaction(ctx, "users.update", async ({ em }) => {
    const now = new Date();
    // The family lock, with ownership, as the transaction's first statement.
    const found = await requireOwnedRegistration(ctx, em, cmd.groupId, cmd.cloginId, {
      lock: true,
      // Checked once ownership is proven (FORBIDDEN comes first), before USER_NOT_FOUND.
      whenOwned: () => assertUpdateShape(cmd),
      whenNotRegistered: acceptNotRegistered ? () => notRegisteredOutcome(cmd, valuesSent) : undefined,
    });
    if ("notRegistered" in found) return found;
    const user: RegisteredUser = found;
    // Contract §17: the person's own fields are updated in every project, mapped field or not.
    const personChanged = await updatePerson(em, user.cloginId, person.attributes);
    if (person.attributes.mainEmail !== undefined) user.mainEmail = person.attributes.mainEmail;
    const ownConnection = connectedToOf(user);
    if (cmd.connectedTo != null && cmd.connectedTo !== ownConnection) {
      const message = `${cmd.connectedTo} does not match user ${cmd.cloginId}, whose connected_to is ${ownConnection}`;
      throw validationFailed([{ path: ["connectedTo"], reason: "NOT_AVAILABLE", value: cmd.connectedTo, message }]);
    }
    const problems: ValueProblem[] = [...person.problems];
    const notices: string[] = noticesOf(person.problems);
    let mainEmail = user.mainEmail;
    if (valuesSent) {
      const saved = await saveSentValues(em, user, values!, cmd, { person: person.attributes, personChanged, now });
      problems.push(...saved.problems);
      notices.push(...saved.notices);
      mainEmail = saved.mainEmail;
    }
    const marked = cmd.markFormsComplete
      ? await markSentFormsComplete(em, user, cmd, cmd.markFormsComplete, { mainEmail, now })
      : null;
    if (marked) notices.push(...marked.notices);
    const markFormsCompleteResult = marked && { markedComplete: marked.markedComplete, skipped: marked.skipped };
    const outcome = await outcomeOf(em, user, notices, problems);
    return { ...outcome, valuesSent, markFormsComplete: markFormsCompleteResult };
  });
}
