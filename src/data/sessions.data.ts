import { IsNull, MoreThan, type EntityManager } from "typeorm";
import { LoginToken, RegistrantSession } from "../entities";
import { selectRows } from "./sql-rows";

// Login tokens and registrant sessions (contract §10). Tokens are stored only as hashes; every
// lookup is by hash.

export async function insertLoginToken(
  em: EntityManager,
  token: { tokenHash: string; registrationId: number; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await em.insert(LoginToken, { ...token, usedAt: null });
}

/**
 * Marks an unused, unexpired token used and returns its registration, or null. One conditional
 * UPDATE decides, so two concurrent redemptions of one token cannot both succeed.
 */
export async function consumeLoginToken(em: EntityManager, tokenHash: string, now: Date): Promise<number | null> {
  const result = await em.update(
    LoginToken,
    { tokenHash, usedAt: IsNull(), expiresAt: MoreThan(now) },
    { usedAt: now },
  );
  if (!result.affected) return null;
  const rows = await selectRows(
    em,
    { registration_id: "int" },
    `SELECT registration_id FROM login_token WHERE token_hash = ?`,
    [tokenHash],
  );
  return rows[0]?.registration_id ?? null;
}

export async function insertRegistrantSession(
  em: EntityManager,
  session: { tokenHash: string; registrationId: number; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await em.insert(RegistrantSession, session);
}

const SESSION_ROW = {
  id: "int",
  created_at: "date",
  uid: "int",
  project_id: "int",
  person_id: "int",
  organization_id: "int",
  connected_to: "intOrNull",
  expires_at: "date",
} as const;

/** The registration behind a live session token hash, with its project's organization; null when none. */
export async function findLiveSession(em: EntityManager, tokenHash: string, now: Date) {
  const rows = await selectRows(
    em,
    SESSION_ROW,
    `SELECT s.id, s.created_at, r.uid, r.project_id, r.person_id, r.connected_to, pr.organization_id, s.expires_at
       FROM registrant_session s
       JOIN registration r ON r.uid = s.registration_id
       JOIN project pr ON pr.id = r.project_id
      WHERE s.token_hash = ?`,
    [tokenHash],
  );
  // Compared here, not in SQL: the drivers bind dates differently (text on SQLite).
  const row = rows[0];
  return row && row.expires_at.getTime() > now.getTime()
    ? {
        sessionId: row.id,
        sessionCreatedAt: row.created_at,
        uid: row.uid,
        groupId: row.project_id,
        cloginId: row.person_id,
        organizationId: row.organization_id,
        parentCloginId: row.connected_to,
      }
    : null;
}

/** Ends a session (logout): its token authenticates nothing from the next statement on, on every instance. */
export async function deleteRegistrantSession(em: EntityManager, sessionId: number): Promise<boolean> {
  const result = await em.delete(RegistrantSession, { id: sessionId });
  return (result.affected ?? 0) > 0;
}

/** Moves a session's expiry (a refresh). */
export async function setSessionExpiry(em: EntityManager, sessionId: number, expiresAt: Date): Promise<void> {
  await em.update(RegistrantSession, { id: sessionId }, { expiresAt });
}

/** The wire pair of a registration (for the answer of a redemption). */
export async function findRegistrationPair(em: EntityManager, uid: number) {
  const rows = await selectRows(
    em,
    { project_id: "int", person_id: "int" },
    `SELECT project_id, person_id FROM registration WHERE uid = ?`,
    [uid],
  );
  return rows[0] ? { groupId: rows[0].project_id, cloginId: rows[0].person_id } : null;
}
