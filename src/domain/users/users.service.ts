import type { EntityManager } from "typeorm";
import { hashPassword } from "../../auth/secrets";
import { isUniqueViolation } from "../../db/unique-violation";
import { EmailRecord, Person, Registration, RegistrationForm } from "../../entities";
import { requirePrincipal, type RequestContext } from "../context";
import { conflict, DomainError, validationFailed } from "../errors";
import { saveFieldValues, type PersonAttributes } from "../forms/field-values";
import { insertRows } from "../../db/insert-rows";
import { loadInitialFormIds, loadRegisteredForms, MAX_KEYS_PER_CALL, type RegisteredForm } from "../forms/form-queries";
import { markFormsComplete, submitFormsWithValues, type SubmissionSettings } from "../forms/form-submission";
import { resolveOwnedProject } from "../group-scope";
import { inTransaction } from "../transaction";
import { assertSendingAdmins, emailListProblems, emailRecords } from "./email-history";
import { readPersonData, type PersonData } from "./new-user-data";
import { failOnProblems } from "./problems";
import { requireRegisteredUser, type RegisteredUser } from "./registration-lookup";
import type {
  AddEmailsCommand,
  CreateUserCommand,
  UpdateUserCommand,
  UpdateUserOutcome,
  UserOutcome,
} from "./user-commands";
import { loadUserSummaries } from "./user-summary";
import { clientValue } from "../../shared/client-value";

// The users operations shared by the legacy REST envelope and GraphQL. Each resolves the group
// first (FORBIDDEN before anything else), runs in one transaction and returns the refreshed
// summary; a failed call writes nothing.

async function outcomeOf(
  em: EntityManager,
  user: { uid: number; projectId: number; cloginId: number },
  notices: string[],
): Promise<UserOutcome> {
  const summary = (await loadUserSummaries(em, [user.uid])).get(user.uid);
  if (!summary) throw new Error(`registration ${user.uid} vanished inside its own transaction`);
  return { uid: user.uid, groupId: user.projectId, cloginId: user.cloginId, summary, notices };
}

function assertKeyCount(values: Record<string, unknown> | null): void {
  const count = values ? Object.keys(values).length : 0;
  if (count > MAX_KEYS_PER_CALL) {
    throw validationFailed(`doc has ${count} members; at most ${MAX_KEYS_PER_CALL} are accepted per call.`, [
      { path: "doc", message: `doc has ${count} members; at most ${MAX_KEYS_PER_CALL} are accepted per call.` },
    ]);
  }
}

async function updatePerson(em: EntityManager, personId: number, attributes: PersonAttributes): Promise<void> {
  if (Object.keys(attributes).length > 0) await em.update(Person, { id: personId }, attributes);
}

/**
 * Saves `doc` values, then submits the forms they belong to (unless submit_forms is false).
 * Mapped person fields update the person first, so trigger emails go to the current main email.
 */
async function saveValuesAndSubmit(
  em: EntityManager,
  user: RegisteredUser,
  forms: ReadonlyMap<number, RegisteredForm>,
  values: Record<string, unknown>,
  options: {
    submitForms: boolean;
    disableEmailSending: boolean;
    now: Date;
    consumedKeys?: ReadonlySet<string>;
    explicitPerson?: PersonAttributes;
  },
): Promise<{ notices: string[]; mainEmail: string | null }> {
  const saved = await saveFieldValues(em, values, {
    registrationId: user.uid,
    projectId: user.projectId,
    cloginId: user.cloginId,
    forms,
    consumedKeys: options.consumedKeys,
    now: options.now,
  });
  const person: PersonAttributes = { ...saved.person };
  for (const key of Object.keys(options.explicitPerson ?? {}) as (keyof PersonAttributes)[]) delete person[key];
  await updatePerson(em, user.cloginId, person);
  const mainEmail = person.mainEmail !== undefined ? person.mainEmail : user.mainEmail;
  const settings: SubmissionSettings = {
    target: { registrationId: user.uid, cloginId: user.cloginId, mainEmail },
    projectId: user.projectId,
    submitForms: options.submitForms,
    disableEmailSending: options.disableEmailSending,
    now: options.now,
  };
  const submissionNotices = await submitFormsWithValues(em, settings, forms, saved);
  return { notices: [...saved.notices, ...submissionNotices], mainEmail };
}

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
export async function createUser(ctx: RequestContext, cmd: CreateUserCommand): Promise<UserOutcome> {
  const organizationId = requirePrincipal(ctx).organizationId;
  await resolveOwnedProject(ctx, cmd.groupId);
  const newPerson = cmd.cloginId === null;
  const { data, problems } = readPersonData(cmd, newPerson);
  if (cmd.connectedTo !== null && cmd.connectedTo !== cmd.cloginId) {
    problems.unshift({
      path: "connected_to",
      message:
        "connected_to is not accepted by create, which registers a parent or an individual; children are created with create_child.",
    });
  }
  failOnProblems(problems);
  assertKeyCount(cmd.values);
  // scrypt is slow on purpose: hash before the transaction so no locks are held meanwhile.
  const passwordHash = newPerson && data.password !== null ? await hashPassword(data.password) : null;

  return inTransaction(ctx, async ({ em }) => {
    const now = new Date();
    const notices: string[] = [];
    let cloginId: number;
    let mainEmail: string | null;
    if (cmd.cloginId !== null) {
      cloginId = cmd.cloginId;
      const rows: { main_email: string | null }[] = await em.query(
        `SELECT main_email FROM person WHERE id = ? AND organization_id = ?`,
        [cloginId, organizationId],
      );
      if (rows.length === 0)
        throw new DomainError("USER_NOT_FOUND", `clogin_id ${cloginId} is not a user of your organization.`);
      const registered: unknown[] = await em.query(
        `SELECT uid FROM registration WHERE project_id = ? AND person_id = ?`,
        [cmd.groupId, cloginId],
      );
      if (registered.length > 0)
        throw conflict(`User ${cloginId} is already registered in project ${cmd.groupId}.`, {
          clogin_id: String(cloginId),
        });
      if (cmd.username !== undefined || cmd.password !== undefined) {
        notices.push(`username and password were ignored: user ${cloginId} already exists and keeps its login.`);
      }
      const attributes = explicitAttributes(data);
      await updatePerson(em, cloginId, attributes);
      mainEmail = data.mainEmail ?? (rows[0].main_email == null ? null : String(rows[0].main_email));
    } else {
      const username = data.username ?? data.mainEmail!;
      const taken: unknown[] = await em.query(
        `SELECT id FROM person WHERE organization_id = ? AND LOWER(username) = ?`,
        [organizationId, username.toLowerCase()],
      );
      if (taken.length > 0) throw conflict(`Username ${clientValue(username)} is already used in your organization.`);
      try {
        const inserted = await em.insert(Person, {
          organizationId,
          username,
          passwordHash,
          mainEmail: data.mainEmail,
          firstName: data.firstName,
          lastName: data.lastName,
          orgName: data.orgName,
        });
        cloginId = Number(inserted.identifiers[0].id);
      } catch (error) {
        if (isUniqueViolation(error))
          throw conflict(`Username ${clientValue(username)} is already used in your organization.`);
        throw error;
      }
      mainEmail = data.mainEmail;
    }

    let uid: number;
    try {
      const inserted = await em.insert(Registration, {
        projectId: cmd.groupId,
        personId: cloginId,
        connectedTo: null,
        statusId: null,
        star: false,
        applicationDate: now,
        assignedAdminId: null,
      });
      uid = Number(inserted.identifiers[0].uid);
    } catch (error) {
      if (isUniqueViolation(error))
        throw conflict(`User ${cloginId} is already registered in project ${cmd.groupId}.`, {
          clogin_id: String(cloginId),
        });
      throw error;
    }
    // create makes a parent (family project) or an individual: both get the parent-level forms.
    const formIds = await loadInitialFormIds(em, cmd.groupId, "parent");
    await insertRows(
      em,
      RegistrationForm,
      formIds.map((formId) => ({
        registrationId: uid,
        formId,
        completed: false,
        completedAt: null,
        submittedAt: null,
        addedAt: now,
      })),
    );
    const forms = new Map<number, RegisteredForm>(
      formIds.map((formId) => [formId, { formId, name: "", completed: false, completedAt: null, submittedAt: null }]),
    );
    const user: RegisteredUser = { uid, projectId: cmd.groupId, cloginId, parentCloginId: null, mainEmail };
    const personKeys = personKeyValues(data);
    const values = { ...personKeys, ...cmd.values };
    if (Object.keys(values).length > 0) {
      const saved = await saveValuesAndSubmit(em, user, forms, values, {
        submitForms: cmd.submitForms,
        disableEmailSending: cmd.disableEmailSending,
        now,
        consumedKeys: new Set(Object.keys(personKeys)),
        explicitPerson: explicitAttributes(data),
      });
      notices.push(...saved.notices);
    }
    return outcomeOf(em, user, notices);
  });
}

/**
 * users `update`: `doc` values first (with their submissions and triggers), then
 * `mark_forms_complete`, in one transaction. Values that cannot be written are reported in
 * `notices`. Throws FORBIDDEN, VALIDATION_FAILED (no doc and no mark_forms_complete; a
 * connected_to that is not the user's) or USER_NOT_FOUND.
 */
export async function updateUser(ctx: RequestContext, cmd: UpdateUserCommand): Promise<UpdateUserOutcome> {
  await resolveOwnedProject(ctx, cmd.groupId);
  if (cmd.values === null && cmd.markFormsComplete === null) {
    throw validationFailed("doc is required unless mark_forms_complete is sent.", [
      { path: "doc", message: "doc is required unless mark_forms_complete is sent." },
    ]);
  }
  assertKeyCount(cmd.values);
  if (
    cmd.markFormsComplete &&
    "formIds" in cmd.markFormsComplete &&
    cmd.markFormsComplete.formIds.length > MAX_KEYS_PER_CALL
  ) {
    const message = `mark_forms_complete lists ${cmd.markFormsComplete.formIds.length} ids; at most ${MAX_KEYS_PER_CALL} are accepted per call.`;
    throw validationFailed(message, [{ path: "mark_forms_complete", message }]);
  }

  return inTransaction(ctx, async ({ em }) => {
    const now = new Date();
    const user = await requireRegisteredUser(em, cmd.groupId, cmd.cloginId, { lock: true });
    const ownConnection = user.parentCloginId ?? user.cloginId;
    if (cmd.connectedTo != null && cmd.connectedTo !== ownConnection) {
      const message = `connected_to ${cmd.connectedTo} does not match user ${cmd.cloginId}, whose connected_to is ${ownConnection}.`;
      throw validationFailed(message, [{ path: "connected_to", message }]);
    }
    const notices: string[] = [];
    const valuesSent = cmd.values !== null && Object.keys(cmd.values).length > 0;
    let mainEmail = user.mainEmail;
    if (valuesSent) {
      const forms = new Map((await loadRegisteredForms(em, user.uid)).map((form) => [form.formId, form]));
      const saved = await saveValuesAndSubmit(em, user, forms, cmd.values!, {
        submitForms: cmd.submitForms,
        disableEmailSending: cmd.disableEmailSending,
        now,
      });
      notices.push(...saved.notices);
      mainEmail = saved.mainEmail;
    }
    let markFormsCompleteResult: UpdateUserOutcome["markFormsComplete"] = null;
    if (cmd.markFormsComplete) {
      const marked = await markFormsComplete(
        em,
        {
          target: { registrationId: user.uid, cloginId: user.cloginId, mainEmail },
          projectId: user.projectId,
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
export async function addEmails(ctx: RequestContext, cmd: AddEmailsCommand): Promise<UserOutcome> {
  const organizationId = requirePrincipal(ctx).organizationId;
  await resolveOwnedProject(ctx, cmd.groupId);
  failOnProblems(emailListProblems(cmd.emails));
  return inTransaction(ctx, async ({ em }) => {
    const user = await requireRegisteredUser(em, cmd.groupId, cmd.cloginId);
    await assertSendingAdmins(em, organizationId, cmd.groupId, cmd.emails);
    await insertRows(em, EmailRecord, emailRecords(user.uid, cmd.emails, new Date()));
    return outcomeOf(em, user, []);
  });
}

/** Reads one user of the project. Throws FORBIDDEN or USER_NOT_FOUND. */
export async function getUser(ctx: RequestContext, groupId: number, cloginId: number): Promise<UserOutcome> {
  await resolveOwnedProject(ctx, groupId);
  return inTransaction(ctx, async ({ em }) => outcomeOf(em, await requireRegisteredUser(em, groupId, cloginId), []));
}
