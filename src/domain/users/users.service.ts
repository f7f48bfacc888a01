import type { EntityManager } from "typeorm";
import { hashPassword } from "../../auth/secrets";
import { insertEmailHistory } from "../../data/email-history.data";
import type { RegistrationLists, RegistrationListsWanted } from "../../data/registration-lists.data";
import { addFormsToRegistration, type RegistrationFormState } from "../../data/forms.data";
import { readValueTargets, type ValueTargets } from "../../data/form-submission.data";
import { readRegistrationPlan, type RegistrationPlan } from "../../data/registration-plan.data";
import { findPersonOfOrganization, findUsernameHolder, insertPerson, updatePerson } from "../../data/persons.data";
import { findRegisteredUser, insertRegistration, lockRegistration } from "../../data/registrations.data";
import type { SummaryPart } from "../../data/user-projection";
import { readOwnedSummary } from "../../data/user-summary.data";
import { requirePrincipal, type RequestContext } from "../context";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import { conflict, DomainError, failOnProblems, userNotFound, validationFailed, type Problem } from "../errors";
import { planNewValues, saveFieldValues, writePlannedValues, type PersonAttributes } from "../forms/field-values";
import { initialForms, MAX_KEYS_PER_CALL, registrationLevel } from "../forms/form-rules";
import {
  firstEmptyMandatory,
  formsToSubmit,
  markFormsComplete,
  notAFormId,
  sentFormIds,
  submissionEvents,
  submitFormsWithValues,
  type SubmissionSettings,
} from "../forms/form-submission";
import { applyTriggerEffects, planTriggerEffects } from "../triggers/trigger-runner";
import { authorize, notOwnedProject, resolveOwnedProject } from "../group-scope";
import { countRegistration } from "../projects/project-counters";
import { inTransaction } from "../transaction";
import { isEmailAddress } from "../../common/email";
import { assertSendingAdmins, emailListProblems, emailRecords } from "./email-history";
import { readPersonData, type PersonData } from "./new-user-data";
import { connectedToOf, counterBucketOf, requireRegisteredUser, type RegisteredUser } from "./registration-lookup";
import {
  AddEmailsCommand,
  CreateChildCommand,
  CreateUserCommand,
  UpdateUserCommand,
  type NotRegisteredUpdateOutcome,
  type UpdateUserOutcome,
  type UserOutcome,
} from "./user-commands";
import { loadUserSummaries, type UserSummary } from "./user-summary";
import { clientValue } from "../../common/client-value";
import { recordEvent, recordEvents } from "../events/record-event";
import { registrationStamped } from "../unit-of-work";

// The users operations shared by the legacy REST envelope and GraphQL. Each resolves the group
// first (FORBIDDEN before anything else), runs in one transaction and returns the refreshed
// summary; a failed call writes nothing.

export async function outcomeOf(
  em: EntityManager,
  user: { uid: number; groupId: number; cloginId: number },
  notices: string[],
): Promise<UserOutcome> {
  const summary = (await loadUserSummaries(em, [user.uid])).get(user.uid);
  if (!summary) throw new Error(`registration ${user.uid} vanished inside its own transaction`);
  return { uid: user.uid, groupId: user.groupId, cloginId: user.cloginId, summary, notices };
}

function assertKeyCount(values: Record<string, unknown> | null): void {
  const count = values ? Object.keys(values).length : 0;
  if (count > MAX_KEYS_PER_CALL) {
    throw validationFailed([
      { path: ["values"], message: `has ${count} members; at most ${MAX_KEYS_PER_CALL} are accepted per call` },
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
): Promise<{ notices: string[]; mainEmail: string | null }> {
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
  return { notices: [...saved.notices, ...submissionNotices], mainEmail };
}

const userUpdatedEvent = (user: RegisteredUser, fieldIds: string[]) => ({
  type: "user.updated" as const,
  groupId: user.groupId,
  data: { clogin_id: user.cloginId, field_ids: fieldIds },
});

/** The doc keys of create that are person data; they are also written to fields mapped to them. */
function personKeyValues(data: PersonData): Record<string, string> {
  const keys: Record<string, string> = {};
  if (data.firstName !== null) keys.first_name = data.firstName;
  if (data.lastName !== null) keys.last_name = data.lastName;
  if (data.orgName !== null) keys.org_name = data.orgName;
  if (data.mainEmail !== null) keys.main_email = data.mainEmail;
  return keys;
}

function explicitAttributes(data: PersonData): PersonAttributes {
  const attributes: PersonAttributes = {};
  if (data.firstName !== null) attributes.firstName = data.firstName;
  if (data.lastName !== null) attributes.lastName = data.lastName;
  if (data.orgName !== null) attributes.orgName = data.orgName;
  if (data.mainEmail !== null) attributes.mainEmail = data.mainEmail;
  return attributes;
}

/**
 * users `create`: registers a new person, or an existing person of the organization
 * (`cloginId`), in the project as a parent or individual, with the project's initial forms and
 * the `doc` values. Throws FORBIDDEN, VALIDATION_FAILED, USER_NOT_FOUND (clogin_id not a person
 * of the organization) or CONFLICT (username taken, or already registered in the project).
 */
export async function createUser(
  ctx: RequestContext,
  draft: CommandDraft<typeof CreateUserCommand>,
): Promise<UserOutcome> {
  const cmd = parseCommand(CreateUserCommand, draft);
  const organizationId = authorize(ctx, "users.create", { groupId: cmd.groupId }).organizationId;
  const newPerson = cmd.cloginId === null;
  const { data, problems } = readPersonData(cmd, newPerson);
  const plan = await readOwnedRegistrationPlan(ctx, cmd.groupId, { ...personKeyValues(data), ...cmd.values });
  if (cmd.connectedTo !== null && cmd.connectedTo !== cmd.cloginId) {
    problems.unshift({
      path: ["connectedTo"],
      message:
        "is not accepted by create, which registers a parent or an individual; children are created with create_child",
    });
  }
  failOnProblems(problems);
  assertKeyCount(cmd.values);
  // scrypt is slow on purpose: hash before the transaction so no locks are held meanwhile.
  const passwordHash = newPerson && data.password !== null ? await hashPassword(data.password) : null;
  return inTransaction(ctx, ({ em }) =>
    registerPerson(em, organizationId, cmd, data, passwordHash, plan, {
      parent: null,
      applicationDate: new Date(),
    }),
  );
}

/**
 * users `create_child` (contract §9): registers a new person (or an existing one of the
 * organization) as the child of `connected_to`, a parent or individual of this family project,
 * with the initial forms of levels `all` and `child`. Throws FORBIDDEN, VALIDATION_FAILED (every
 * member problem at once; `group_id` when the project keeps no families; `connected_to`),
 * USER_NOT_FOUND (clogin_id not a person of the organization) or CONFLICT (with `clogin_id`).
 */
export async function createChild(
  ctx: RequestContext,
  draft: CommandDraft<typeof CreateChildCommand>,
): Promise<UserOutcome> {
  const cmd = parseCommand(CreateChildCommand, draft);
  const organizationId = authorize(ctx, "users.create_child", { groupId: cmd.groupId }).organizationId;
  const newPerson = cmd.cloginId === null;
  const { data, problems } = readPersonData(cmd, newPerson, { mainEmailRequired: false });
  const plan = await readOwnedRegistrationPlan(ctx, cmd.groupId, { ...personKeyValues(data), ...cmd.values });
  failOnProblems(problems);
  const parentCloginId = cmd.connectedTo;
  assertKeyCount(cmd.values);
  const passwordHash = newPerson && data.password !== null ? await hashPassword(data.password) : null;

  return inTransaction(ctx, async ({ em }) => {
    // The parent's row is the family's lock, taken first (docs/counters.md, "Locks"): its
    // exclusion, which puts the child in its counter bucket, cannot change until this commits.
    const parent = await lockRegistration(em, cmd.groupId, parentCloginId);
    const familyProblems: Problem[] = [];
    if (!plan.familySystem) {
      familyProblems.push({
        path: ["groupId"],
        message: `${cmd.groupId} is not a family project; create_child needs one`,
      });
    } else if (!parent || parent.connectedTo !== null)
      familyProblems.push({
        path: ["connectedTo"],
        message: `${parentCloginId} is not a parent or individual registered in project ${cmd.groupId}`,
      });
    failOnProblems(familyProblems);
    return registerPerson(em, organizationId, cmd, data, passwordHash, plan, {
      parent: { cloginId: parentCloginId, excluded: parent!.excluded },
      applicationDate: cmd.applicationDate ?? new Date(),
    });
  });
}

/**
 * What registering into the project needs to know of it (one statement, before the
 * transaction), when the caller's organization owns it; FORBIDDEN otherwise. `values` are the
 * call's doc values, whose keys name fields.
 */
async function readOwnedRegistrationPlan(
  ctx: RequestContext,
  groupId: number,
  values: Record<string, unknown>,
): Promise<RegistrationPlan> {
  const keys = Object.keys(values).filter((key) => !key.startsWith("_"));
  const plan = await readRegistrationPlan(ctx.em, groupId, keys.slice(0, MAX_KEYS_PER_CALL));
  if (!plan || plan.organizationId !== requirePrincipal(ctx).organizationId) throw notOwnedProject(groupId);
  return plan;
}

/**
 * The registration shared by create and create_child: a new person (or an existing one of the
 * organization, registered here too), the initial forms of its level, then the `doc` values, the
 * submission of the forms they complete and what those forms' triggers do. Everything is decided
 * from the project's plan first, then written with one multi-row statement per table (a create
 * with values and a trigger costs about a dozen statements, whatever the number of forms, fields
 * and triggers).
 */
async function registerPerson(
  em: EntityManager,
  organizationId: number,
  cmd: CreateUserCommand,
  data: PersonData,
  passwordHash: string | null,
  plan: RegistrationPlan,
  options: { parent: { cloginId: number; excluded: boolean } | null; applicationDate: Date },
): Promise<UserOutcome> {
  const parentCloginId = options.parent?.cloginId ?? null;
  const now = new Date();
  const notices: string[] = [];
  // create makes a parent (family project) or an individual: parent-level forms; a child gets child-level ones.
  const startForms = initialForms(plan.initialForms, registrationLevel(parentCloginId));
  const formIds = new Set(startForms.map((form) => form.id));
  const personKeys = personKeyValues(data);
  const values = { ...personKeys, ...cmd.values };
  // Pure, so it is planned before the person exists (its mapped fields are part of the person's
  // row) and again once its clogin_id, which some notices name, is known.
  const planValues = (cloginId: number) =>
    planNewValues(values, plan.namedFields, {
      projectId: cmd.groupId,
      cloginId,
      forms: formIds,
      consumedKeys: new Set(Object.keys(personKeys)),
    });
  // Mapped fields set the person's own data too, unless the call set that member itself.
  const explicit = explicitAttributes(data);
  const mapped: PersonAttributes = { ...planValues(cmd.cloginId ?? 0).person };
  for (const key of Object.keys(explicit) as (keyof PersonAttributes)[]) delete mapped[key];

  let cloginId: number;
  let mainEmail: string | null;
  if (cmd.cloginId !== null) {
    cloginId = cmd.cloginId;
    const person = await findPersonOfOrganization(em, cloginId, organizationId);
    if (!person) throw new DomainError("USER_NOT_FOUND", `clogin_id ${cloginId} is not a user of your organization.`);
    if (cmd.username !== undefined || cmd.password !== undefined) {
      notices.push(`username and password were ignored: user ${cloginId} already exists and keeps its login.`);
    }
    await updatePerson(em, cloginId, { ...mapped, ...explicit });
    mainEmail = data.mainEmail ?? person.mainEmail;
  } else {
    // A child without a main email has no login (contract §9): its username stays empty.
    const username = data.username ?? data.mainEmail;
    const inserted = await insertPerson(em, {
      organizationId,
      username,
      passwordHash,
      mainEmail: data.mainEmail,
      firstName: data.firstName,
      lastName: data.lastName,
      orgName: data.orgName,
      ...mapped,
    });
    if (inserted === null) throw usernameTaken(username!, await findUsernameHolder(em, organizationId, username!));
    cloginId = inserted;
    mainEmail = data.mainEmail;
  }
  const uid = await insertRegistration(em, {
    projectId: cmd.groupId,
    personId: cloginId,
    connectedTo: parentCloginId,
    applicationDate: options.applicationDate,
    updatedAt: new Date(),
  });
  if (uid === null) throw alreadyRegistered(cloginId, cmd.groupId);
  registrationStamped(em, cmd.groupId, cloginId);
  const planned = planValues(cloginId);
  const user: RegisteredUser = {
    uid,
    groupId: cmd.groupId,
    cloginId,
    parentCloginId,
    mainEmail,
    // A new registration has no status yet.
    excluded: false,
    parentExcluded: options.parent?.excluded ?? false,
  };
  notices.push(...planned.notices);

  // The forms the values complete are submitted (contract §4): a new registration submitted none yet.
  const candidates = cmd.submitForms ? planned.formsWithValues : [];
  const submitted = formsToSubmit(
    candidates,
    firstEmptyMandatory(
      plan.mandatoryFields
        .filter((field) => candidates.includes(field.formId))
        .map((field) => ({ field, value: planned.answers.get(field.id) ?? null })),
    ),
  );
  const settings: SubmissionSettings = {
    target: {
      registrationId: uid,
      cloginId,
      mainEmail: mapped.mainEmail !== undefined ? mapped.mainEmail : mainEmail,
      bucket: counterBucketOf(user),
    },
    projectId: cmd.groupId,
    submitForms: cmd.submitForms,
    disableEmailSending: cmd.disableEmailSending,
    now,
  };
  const triggers = planTriggerEffects(
    plan.triggers.filter((trigger) => submitted.includes(trigger.formId)),
    settings.target,
    formIds,
    settings,
  );
  notices.push(...triggers.effects.notices);

  const done = new Set(submitted);
  await addFormsToRegistration(
    em,
    uid,
    [
      ...startForms.map((form) => ({
        formId: form.id,
        ...(done.has(form.id) ? { completed: true, completedAt: now, submittedAt: now } : {}),
      })),
      ...triggers.writes.addedFormIds.map((formId) => ({ formId })),
    ],
    now,
  );
  await writePlannedValues(em, uid, planned, now);
  countRegistration(em, cmd.groupId, counterBucketOf(user));
  recordEvent(em, userCreatedEvent(user), now);
  recordEvents(
    em,
    submissionEvents(settings, submitted, () => true),
    now,
  );
  await applyTriggerEffects(
    em,
    { ...triggers, writes: { ...triggers.writes, addedFormIds: [] } },
    settings.target,
    settings,
  );
  return outcomeOf(em, user, notices);
}

const userCreatedEvent = (user: RegisteredUser) => ({
  type: "user.created" as const,
  groupId: user.groupId,
  data: { clogin_id: user.cloginId, connected_to: user.parentCloginId },
});

const alreadyRegistered = (cloginId: number, groupId: number) =>
  conflict(`User ${cloginId} is already registered in project ${groupId}.`, { clogin_id: String(cloginId) });

/** Contract §17: the 409 names the person who holds the username, so a retried create can carry on. */
const usernameTaken = (username: string, holder: number | null) =>
  conflict(
    `Username ${clientValue(username)} is already used in your organization${holder === null ? "" : ` by clogin_id ${holder}`}.`,
    holder === null ? undefined : { clogin_id: String(holder) },
  );

/** The person's own fields, accepted by `update` in every project (contract §17), and their limits. */
const PERSON_KEYS = {
  first_name: { attribute: "firstName", max: 100 },
  last_name: { attribute: "lastName", max: 100 },
  org_name: { attribute: "orgName", max: 200 },
  main_email: { attribute: "mainEmail", max: 254 },
} as const;

/**
 * Reads the person keys of an update's values: trimmed, empty names cleared, main_email validated.
 * A value that cannot be written is left out with a notice, as update does for any field value.
 */
function readPersonKeysOfUpdate(values: Record<string, unknown> | null): {
  attributes: PersonAttributes;
  notices: string[];
  refused: Set<string>;
} {
  const attributes: PersonAttributes = {};
  const notices: string[] = [];
  const refused = new Set<string>();
  for (const [key, { attribute, max }] of Object.entries(PERSON_KEYS)) {
    if (!values || !(key in values)) continue;
    const value = values[key];
    const text = typeof value === "string" ? value.trim() : null;
    let problem: string | null = null;
    if (text === null) problem = "is not text";
    else if (text.length > max) problem = `is longer than ${max} characters`;
    else if (attribute === "mainEmail" && !isEmailAddress(text)) problem = "is not a valid email address";
    if (problem !== null) {
      refused.add(key);
      notices.push(`"${key}" ${problem}; it was not written.`);
    } else attributes[attribute] = text === "" ? null : text;
  }
  return { attributes, notices, refused };
}

/**
 * users `update`: `doc` values first (with their submissions and triggers), then
 * `mark_forms_complete`, in one transaction. Values that cannot be written are reported in
 * `notices`. Throws FORBIDDEN, VALIDATION_FAILED (no doc and no mark_forms_complete; a
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
  await resolveOwnedProject(ctx, cmd.groupId);
  if (cmd.values === null && cmd.markFormsComplete === null) {
    throw validationFailed([{ path: ["values"], message: "is required unless forms are marked complete" }]);
  }
  assertKeyCount(cmd.values);
  if (
    cmd.markFormsComplete &&
    "formIds" in cmd.markFormsComplete &&
    cmd.markFormsComplete.formIds.length > MAX_KEYS_PER_CALL
  ) {
    const message = `lists ${cmd.markFormsComplete.formIds.length} ids; at most ${MAX_KEYS_PER_CALL} are accepted per call`;
    throw validationFailed([{ path: ["markFormsComplete"], message }]);
  }

  const person = readPersonKeysOfUpdate(cmd.values);
  const values =
    cmd.values === null
      ? null
      : Object.fromEntries(Object.entries(cmd.values).filter(([key]) => !person.refused.has(key)));

  const valuesSent = values !== null && Object.keys(values).length > 0;

  return inTransaction(ctx, async ({ em }) => {
    const now = new Date();
    const found = await findRegisteredUser(em, cmd.groupId, cmd.cloginId, { lock: true });
    if (!found) {
      if (acceptNotRegistered) return notRegisteredOutcome(cmd, valuesSent);
      throw userNotFound(cmd.cloginId, cmd.groupId);
    }
    const user: RegisteredUser = found;
    // Contract §17: the person's own fields are updated in every project, mapped field or not.
    const personChanged = await updatePerson(em, user.cloginId, person.attributes);
    if (person.attributes.mainEmail !== undefined) user.mainEmail = person.attributes.mainEmail;
    const ownConnection = connectedToOf(user);
    if (cmd.connectedTo != null && cmd.connectedTo !== ownConnection) {
      const message = `${cmd.connectedTo} does not match user ${cmd.cloginId}, whose connected_to is ${ownConnection}`;
      throw validationFailed([{ path: ["connectedTo"], message }]);
    }
    const notices: string[] = [...person.notices];
    let mainEmail = user.mainEmail;
    if (valuesSent) {
      const keys = Object.keys(values!).filter((key) => !key.startsWith("_"));
      const targets = await readValueTargets(em, user.uid, user.groupId, keys);
      const forms = new Map(targets.formSet.map((entry) => [entry.form.id, entry]));
      const saved = await saveValuesAndSubmit(em, user, forms, values!, {
        preread: targets,
        submitForms: cmd.submitForms,
        disableEmailSending: cmd.disableEmailSending,
        now,
        consumedKeys: new Set(Object.keys(PERSON_KEYS).filter((key) => key in values!)),
        explicitPerson: person.attributes,
        updated: { personChanged },
      });
      notices.push(...saved.notices);
      mainEmail = saved.mainEmail;
    }
    let markFormsCompleteResult: UpdateUserOutcome["markFormsComplete"] = null;
    if (cmd.markFormsComplete) {
      const marked = await markFormsComplete(
        em,
        {
          target: { registrationId: user.uid, cloginId: user.cloginId, mainEmail, bucket: counterBucketOf(user) },
          projectId: user.groupId,
          submitForms: cmd.submitForms,
          disableEmailSending: cmd.disableEmailSending,
          now,
        },
        cmd.markFormsComplete,
      );
      notices.push(...marked.notices);
      markFormsCompleteResult = { markedComplete: marked.markedComplete, skipped: marked.skipped };
    }
    const outcome = await outcomeOf(em, user, notices);
    return { ...outcome, valuesSent, markFormsComplete: markFormsCompleteResult };
  });
}

/**
 * users `add_email`: records emails sent elsewhere in the user's history (origin `api`); nothing
 * is sent. All or nothing. Throws FORBIDDEN (group, or an admin_id that may not send here),
 * VALIDATION_FAILED or USER_NOT_FOUND.
 */
export async function addEmails(
  ctx: RequestContext,
  draft: CommandDraft<typeof AddEmailsCommand>,
): Promise<UserOutcome> {
  const cmd = parseCommand(AddEmailsCommand, draft);
  const organizationId = authorize(ctx, "users.add_email", { groupId: cmd.groupId }).organizationId;
  await resolveOwnedProject(ctx, cmd.groupId);
  failOnProblems(emailListProblems(cmd.emails));
  return inTransaction(ctx, async ({ em }) => {
    const user = await requireRegisteredUser(em, cmd.groupId, cmd.cloginId);
    await assertSendingAdmins(em, organizationId, cmd.groupId, cmd.emails);
    await insertEmailHistory(em, emailRecords(user.uid, cmd.emails, new Date()));
    recordEvents(em, emailRecordedEvents(user, cmd.emails));
    return outcomeOf(em, user, []);
  });
}

const emailRecordedEvents = (user: RegisteredUser, emails: AddEmailsCommand["emails"]) =>
  emails.map((email) => ({
    type: "email.recorded" as const,
    groupId: user.groupId,
    data: { clogin_id: user.cloginId, to: email.to.trim(), subject: email.subject },
    adminId: email.adminId ?? null,
  }));

/**
 * Reads one user of the project. Throws FORBIDDEN or USER_NOT_FOUND. Ownership, registration and
 * summary come from one statement, so one consistent read answers all three; `withChildren` adds
 * the summaries of the user's children to that same statement, `lists` the lists of the user
 * (and children) it names.
 */
export async function getUser(
  ctx: RequestContext,
  groupId: number,
  cloginId: number,
  /**
   * With `parts`, the summaries hold only those parts (the others read as zero, empty or null):
   * for a caller that uses no other part of them.
   */
  options: { withChildren?: boolean; parts?: ReadonlySet<SummaryPart> | null; lists?: RegistrationListsWanted } = {},
): Promise<UserOutcome & { children: UserSummary[]; lists: Map<number, RegistrationLists> }> {
  const { organizationId } = authorize(ctx, "read", { groupId });
  const found = await readOwnedSummary(ctx.em, organizationId, groupId, cloginId, options);
  if (!found.owned) throw notOwnedProject(groupId);
  if (!found.summary) throw userNotFound(cloginId, groupId);
  return {
    uid: found.summary.uid,
    groupId,
    cloginId,
    summary: found.summary,
    notices: [],
    children: found.children,
    lists: found.lists,
  };
}
