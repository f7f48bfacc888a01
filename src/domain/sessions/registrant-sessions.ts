import type { ValueProblem } from "../forms/value-problems";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { EntityManager } from "typeorm";
import {
  consumeLoginToken,
  deleteRegistrantSession,
  findLiveSession,
  setSessionExpiry,
  findRegistrationPair,
  insertLoginToken,
  insertRegistrantSession,
} from "../../data/sessions.data";
import { readFormSet, type RegistrationFormState } from "../../data/forms.data";
import { DEFAULT_DOMAIN_SETTINGS, requireRegistrant, type RegistrantPrincipal, type RequestContext } from "../context";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import { DomainError, validationFailed } from "../errors";
import { LoginCommand, RedeemLoginTokenCommand } from "../users/read-commands";
import { MAX_KEYS_PER_CALL } from "../forms/form-rules";
import { authorize } from "../authorize";
import { resolveOwnedProject } from "../group-scope";
import { inTransaction } from "../transaction";
import { requireRegisteredUser } from "../users/registration-lookup";
import type { UserOutcome } from "../users/user-commands";
import { outcomeOf, saveValuesAndSubmit } from "../users/users.service";

// users `login` and the registrant session (contract §10): a one-time login token (UUID v4) is
// redeemed once for a session token; the session reaches only its own registration. Tokens are
// stored only as SHA-256 hashes: they are random and long, so a fast hash suffices.

/** A session lasts 12 hours (contract §10), and 12 hours from its last refresh. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

/** However often it is refreshed, a session ends 7 days after it was opened: then log in again. */
export const SESSION_MAX_LIFETIME_SECONDS = 7 * 24 * 60 * 60;

const REDEEM_REFUSED = "The login token is unknown, expired or already used.";
const SESSION_REFUSED = "The session token is unknown or expired; sign in again with a new login token.";

const tokenHash = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");

export interface LoginOutcome extends UserOutcome {
  loginToken: string;
  expiresAt: Date;
}

export interface SessionOutcome extends UserOutcome {
  sessionToken: string;
  expiresAt: Date;
}

/**
 * users `login`: a one-time token handing this user to a front end, valid for
 * LOGIN_TOKEN_TTL_S seconds. Throws FORBIDDEN or USER_NOT_FOUND.
 */
export async function loginUser(ctx: RequestContext, draft: CommandDraft<typeof LoginCommand>): Promise<LoginOutcome> {
  const cmd = parseCommand(LoginCommand, draft);
  authorize(ctx, "users.login", { groupId: cmd.groupId });
  await resolveOwnedProject(ctx, cmd.groupId);
  const ttl = (ctx.settings ?? DEFAULT_DOMAIN_SETTINGS).loginTokenTtlSeconds;
  return inTransaction(ctx, "users.login", async ({ em }) => {
    const user = await requireRegisteredUser(em, cmd.groupId, cmd.cloginId);
    const loginToken = randomUUID();
    const now = new Date();
    const expiresAt = new Date(now.getTime() + ttl * 1000);
    await insertLoginToken(em, {
      tokenHash: tokenHash(loginToken),
      registrationId: user.uid,
      createdAt: now,
      expiresAt,
    });
    return { ...(await outcomeOf(em, user, [])), loginToken, expiresAt };
  });
}

/**
 * Redeems a login token once for a 12-hour session token. A used, expired or unknown token is
 * UNAUTHENTICATED with one message for all three, so tokens cannot be probed.
 */
export async function redeemLoginToken(
  ctx: RequestContext,
  draft: CommandDraft<typeof RedeemLoginTokenCommand>,
): Promise<SessionOutcome> {
  const { loginToken } = parseCommand(RedeemLoginTokenCommand, draft);
  return inTransaction(ctx, "session.redeem", async ({ em }) => {
    const now = new Date();
    const uid = await consumeLoginToken(em, tokenHash(loginToken), now);
    const pair = uid === null ? null : await findRegistrationPair(em, uid);
    if (uid === null || pair === null) throw new DomainError("UNAUTHENTICATED", REDEEM_REFUSED);
    const sessionToken = randomBytes(32).toString("base64url");
    const expiresAt = new Date(now.getTime() + SESSION_TTL_SECONDS * 1000);
    await insertRegistrantSession(em, {
      tokenHash: tokenHash(sessionToken),
      registrationId: uid,
      createdAt: now,
      expiresAt,
    });
    const user = await requireRegisteredUser(em, pair.groupId, pair.cloginId);
    return { ...(await outcomeOf(em, user, [])), sessionToken, expiresAt };
  });
}

/** The registrant behind `Authorization: Bearer <session token>`; UNAUTHENTICATED otherwise. */
export async function authenticateRegistrant(em: EntityManager, sessionToken: string): Promise<RegistrantPrincipal> {
  const session = sessionToken ? await findLiveSession(em, tokenHash(sessionToken), new Date()) : null;
  if (!session) throw new DomainError("UNAUTHENTICATED", SESSION_REFUSED);
  return session;
}

/**
 * Ends the caller's session (GraphQL `logout`): the row is deleted, so the token is refused by
 * every instance from then on (each request looks the session up), and a WebSocket opened with it
 * is closed at its next credential check.
 */
export async function endOwnSession(ctx: RequestContext): Promise<void> {
  const me = requireRegistrant(ctx);
  await inTransaction(ctx, "registrant.logout", async ({ em }) => {
    await deleteRegistrantSession(em, me.sessionId);
  });
}

/**
 * Slides the caller's session (GraphQL `refreshSession`): it now ends SESSION_TTL_SECONDS from
 * now, but never later than SESSION_MAX_LIFETIME_SECONDS after it was opened. The token stays
 * the same. Returns the new expiry and the bound.
 */
export async function refreshOwnSession(ctx: RequestContext): Promise<{ expiresAt: Date; endsAtLatest: Date }> {
  const me = requireRegistrant(ctx);
  const endsAtLatest = new Date(me.sessionCreatedAt.getTime() + SESSION_MAX_LIFETIME_SECONDS * 1000);
  const expiresAt = new Date(Math.min(Date.now() + SESSION_TTL_SECONDS * 1000, endsAtLatest.getTime()));
  await inTransaction(ctx, "registrant.refresh_session", async ({ em }) => {
    await setSessionExpiry(em, me.sessionId, expiresAt);
  });
  return { expiresAt, endsAtLatest };
}

/** The session's own registration (GraphQL `me`). */
export async function readOwnRegistration(ctx: RequestContext): Promise<UserOutcome> {
  const me = requireRegistrant(ctx);
  return inTransaction(ctx, "registrant.me", async ({ em }) =>
    outcomeOf(em, await requireRegisteredUser(em, me.groupId, me.cloginId), []),
  );
}

/**
 * The session's own values (GraphQL `updateMe`), with the rules of users `update` (contract §4)
 * over the registrant's forms only: a value for a field of an admin-only form is not written and
 * a problem (FORM_NOT_AVAILABLE) says so, as for any form the user does not have.
 */
export async function updateOwnRegistration(
  ctx: RequestContext,
  cmd: { values: Record<string, unknown>; submitForms: boolean },
): Promise<UserOutcome> {
  const me = requireRegistrant(ctx);
  const keyCount = Object.keys(cmd.values).length;
  if (keyCount > MAX_KEYS_PER_CALL) {
    throw validationFailed([
      {
        path: ["values"],
        reason: "TOO_MANY_ITEMS",
        message: `has ${keyCount} members; at most ${MAX_KEYS_PER_CALL} are accepted per call`,
      },
    ]);
  }
  return inTransaction(ctx, "registrant.update_me", async ({ em }) => {
    const user = await requireRegisteredUser(em, me.groupId, me.cloginId, { lock: true });
    // Admin-only forms are not the registrant's to fill: their fields read as fields of no form.
    const forms = new Map<number, RegistrationFormState>(
      (await readFormSet(em, user.uid))
        .filter((entry) => entry.form.audience !== "admin")
        .map((entry) => [entry.form.id, entry]),
    );
    const notices: string[] = [];
    const problems: ValueProblem[] = [];
    if (Object.keys(cmd.values).length > 0) {
      const saved = await saveValuesAndSubmit(em, user, forms, cmd.values, {
        submitForms: cmd.submitForms,
        disableEmailSending: false,
        now: new Date(),
        updated: { personChanged: false },
      });
      notices.push(...saved.notices);
      problems.push(...saved.problems);
    }
    return outcomeOf(em, user, notices, problems);
  });
}
