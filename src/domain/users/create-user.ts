import { noticesOf } from "../forms/value-problems";
import type { EntityManager } from "typeorm";
import { hashPassword } from "../../auth/secrets";
import { addFormsToRegistration } from "../../data/forms.data";
import type { RegistrationPlan } from "../../data/registration-plan.data";
import {
  findPersonOfOrganization,
  findUsernameHolder,
  insertPerson,
  updatePerson,
  type NewPerson,
} from "../../data/persons.data";
import { insertRegistration, lockRegistration } from "../../data/registrations.data";
import { requirePrincipal, type RequestContext } from "../context";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import { conflict, DomainError, failOnProblems, type Problem } from "../errors";
import { planNewValues, writePlannedValues, type PersonAttributes } from "../forms/field-values";
import { initialForms, MAX_KEYS_PER_CALL, registrationLevel } from "../forms/form-rules";
import {
  firstEmptyMandatory,
  formsToSubmit,
  submissionEvents,
  type SubmissionSettings,
} from "../forms/form-submission";
import { applyTriggerEffects, planTriggerEffects } from "../triggers/trigger-runner";
import { authorize } from "../authorize";
import { notOwnedProject } from "../group-scope";
import { countRegistration } from "../projects/project-counters";
import { inTransaction } from "../transaction";
import { readPersonData, type PersonData } from "./new-user-data";
import { counterBucketOf, type RegisteredUser } from "./registration-lookup";
import { CreateChildCommand, CreateUserCommand, type UserOutcome } from "./user-commands";
import { clientValue } from "../../common/client-value";
import { recordEvent, recordEvents } from "../events/record-event";
import { noteFamilyParent, noteRegistrationUid, registrationStamped } from "../unit-of-work";
import { assertKeyCount, outcomeOf } from "./user-values";
import { summaryOfNewRegistration } from "./user-summary";

// users `create` and `create_child` (contract §7): the person found or made, the registration
// with its initial forms, the `doc` values and their submissions, in one transaction.

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
      reason: "NOT_ALLOWED",
      message:
        "is not accepted by create, which registers a parent or an individual; children are created with create_child",
    });
  }
  failOnProblems(problems);
  assertKeyCount(cmd.values);
  // scrypt is slow on purpose: hash before the transaction so no locks are held meanwhile.
  const passwordHash = newPerson && data.password !== null ? await hashPassword(data.password) : null;
  return inTransaction(ctx, "users.create", ({ em }) =>
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

  return inTransaction(ctx, "users.create_child", async ({ em }) => {
    // The parent's row is the family's lock, taken first (docs/locking.md): its
    // exclusion, which puts the child in its counter bucket, cannot change until this commits.
    const parent = await lockRegistration(em, cmd.groupId, parentCloginId);
    const familyProblems: Problem[] = [];
    if (!plan.familySystem) {
      familyProblems.push({
        path: ["groupId"],
        reason: "NOT_AVAILABLE",
        message: `${cmd.groupId} is not a family project; create_child needs one`,
      });
    } else if (!parent || parent.connectedTo !== null)
      familyProblems.push({
        path: ["connectedTo"],
        reason: "NOT_AVAILABLE",
        message: `${parentCloginId} is not a parent or individual registered in project ${cmd.groupId}`,
      });
    failOnProblems(familyProblems);
    noteRegistrationUid(em, cmd.groupId, parentCloginId, parent!.uid);
    return registerPerson(em, organizationId, cmd, data, passwordHash, plan, {
      parent: { cloginId: parentCloginId, uid: parent!.uid, excluded: parent!.excluded },
      applicationDate: cmd.applicationDate ?? new Date(),
    });
  });
}

/**
 * What registering into the project needs to know of it (one statement before the transaction,
 * the first time this process registers into it with these keys), when the caller's organization
 * owns it; FORBIDDEN otherwise. `values` are the
 * call's doc values, whose keys name fields.
 */
async function readOwnedRegistrationPlan(
  ctx: RequestContext,
  groupId: number,
  values: Record<string, unknown>,
): Promise<RegistrationPlan> {
  const keys = Object.keys(values).filter((key) => !key.startsWith("_"));
  const plan = await ctx.state.registrationPlans.find(ctx.em, groupId, keys.slice(0, MAX_KEYS_PER_CALL));
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
  options: { parent: { cloginId: number; uid: number; excluded: boolean } | null; applicationDate: Date },
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
  // A person created here is known in full, so its registration's search document is written from it.
  let createdPerson: NewPerson | undefined;
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
    createdPerson = {
      organizationId,
      username,
      passwordHash,
      mainEmail: data.mainEmail,
      firstName: data.firstName,
      lastName: data.lastName,
      orgName: data.orgName,
      ...mapped,
    };
    const inserted = await insertPerson(em, createdPerson);
    if (inserted === null) throw usernameTaken(username!, await findUsernameHolder(em, organizationId, username!));
    cloginId = inserted;
    mainEmail = data.mainEmail;
  }
  const updatedAt = new Date();
  const uid = await insertRegistration(
    em,
    {
      projectId: cmd.groupId,
      personId: cloginId,
      connectedTo: parentCloginId,
      applicationDate: options.applicationDate,
      updatedAt,
    },
    createdPerson,
  );
  if (uid === null) throw alreadyRegistered(cloginId, cmd.groupId);
  registrationStamped(em, cmd.groupId, cloginId);
  noteRegistrationUid(em, cmd.groupId, cloginId, uid);
  if (parentCloginId !== null) noteFamilyParent(em, cmd.groupId, cloginId, parentCloginId);
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
    parentUid: options.parent?.uid ?? null,
  };
  notices.push(...noticesOf(planned.problems));

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
  // A registration made with its person was written here in full: its summary needs no read.
  const addedForms = triggers.writes.addedFormIds.map((id) => plan.addedForms.find((form) => form.id === id));
  if (createdPerson === undefined || addedForms.some((form) => form === undefined)) {
    return outcomeOf(em, user, notices, planned.problems);
  }
  const summary = summaryOfNewRegistration({
    uid,
    groupId: cmd.groupId,
    cloginId,
    parentCloginId,
    applicationDate: options.applicationDate,
    updatedAt,
    person: {
      username: createdPerson.username ?? null,
      firstName: createdPerson.firstName ?? null,
      lastName: createdPerson.lastName ?? null,
      orgName: createdPerson.orgName ?? null,
    },
    forms: [
      ...startForms.map((form) => ({ ...form, completed: done.has(form.id) })),
      ...addedForms.map((form) => ({ ...form!, completed: false })),
    ],
    orderCents: triggers.orderCents,
  });
  return { uid, groupId: cmd.groupId, cloginId, summary, notices, problems: planned.problems };
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
