import { In, type EntityManager } from "typeorm";
import { Person } from "../entities";
import { executeWrite, insertRowReturningId } from "../db/insert-rows";
import { isUniqueViolation } from "../db/unique-violation";
import { chunked } from "./batch";
import { writeSearchDocuments } from "./person-search.data";
import { selectRows } from "./sql-rows";

/** A person's account data, never the password hash. */
export interface PersonRecord {
  cloginId: number;
  username: string;
  mainEmail: string | null;
  firstName: string | null;
  lastName: string | null;
}

/** The person attributes a users operation may change. */
export type PersonUpdate = Partial<Pick<Person, "firstName" | "lastName" | "orgName" | "mainEmail">>;

/** Persons by clogin_id (person id). */
export async function readPersons(em: EntityManager, cloginIds: readonly number[]): Promise<Map<number, PersonRecord>> {
  const persons = new Map<number, PersonRecord>();
  await chunked(cloginIds, async (chunk) => {
    const rows = await em.find(Person, {
      where: { id: In(chunk) },
      select: { id: true, username: true, mainEmail: true, firstName: true, lastName: true },
    });
    for (const p of rows)
      persons.set(p.id, {
        cloginId: p.id,
        // A child made without a main email has no login; it reads as an empty username.
        username: p.username ?? "",
        mainEmail: p.mainEmail,
        firstName: p.firstName,
        lastName: p.lastName,
      });
  });
  return persons;
}

/** A person of the organization with its main email, or null when it is not one of its persons. */
export async function findPersonOfOrganization(
  em: EntityManager,
  personId: number,
  organizationId: number,
): Promise<{ mainEmail: string | null } | null> {
  const [row] = await selectRows(
    em,
    { main_email: "textOrNull" },
    `SELECT main_email FROM person WHERE id = ? AND organization_id = ?`,
    [personId, organizationId],
  );
  return row ? { mainEmail: row.main_email } : null;
}

/** The person holding a username in the organization (compared case-insensitively), or null. */
export async function findUsernameHolder(
  em: EntityManager,
  organizationId: number,
  username: string,
): Promise<number | null> {
  const rows = await selectRows(
    em,
    { id: "int" },
    `SELECT id FROM person WHERE organization_id = ? AND LOWER(username) = ?`,
    [organizationId, username.toLowerCase()],
  );
  return rows[0]?.id ?? null;
}

/** A new person's row. */
export type NewPerson = Pick<
  Person,
  "organizationId" | "username" | "passwordHash" | "mainEmail" | "firstName" | "lastName" | "orgName"
>;

/**
 * Inserts a person unless its username is used in the organization already, compared
 * case-insensitively; one statement either way. Returns its id (the clogin_id), or null when the
 * username is taken. MySQL/MariaDB's unique index on (organization_id, username) compares through
 * the column's case-insensitive collation; SQLite's compares bytes, so there the insert checks the
 * folded username itself (SQLite's writes take turns: nothing can slip in between).
 */
export async function insertPerson(em: EntityManager, person: NewPerson): Promise<number | null> {
  if (em.connection.options.type === "better-sqlite3") {
    const columns = [
      "organization_id",
      "username",
      "password_hash",
      "main_email",
      "first_name",
      "last_name",
      "org_name",
    ];
    const result = await executeWrite(
      em,
      `INSERT INTO person (${columns.join(", ")}) SELECT ${columns.map(() => "?").join(", ")}
        WHERE NOT EXISTS (SELECT 1 FROM person WHERE organization_id = ? AND LOWER(username) = ?)`,
      [
        person.organizationId,
        person.username,
        person.passwordHash,
        person.mainEmail,
        person.firstName,
        person.lastName,
        person.orgName,
        person.organizationId,
        person.username?.toLowerCase() ?? null,
      ],
    );
    return result.affected === 0 ? null : result.insertId;
  }
  try {
    return await insertRowReturningId(em, Person, person);
  } catch (error) {
    if (isUniqueViolation(error)) return null;
    throw error;
  }
}

/**
 * Updates the person's attributes (and the search documents of its registrations); true when a
 * stored value changed. Rows whose values are already
 * equal are not matched (null-safe comparison), so the affected count says whether anything changed.
 */
export async function updatePerson(em: EntityManager, personId: number, attributes: PersonUpdate): Promise<boolean> {
  const entries = Object.entries(attributes);
  if (entries.length === 0) return false;
  const sqlite = em.connection.options.type === "better-sqlite3";
  const query = em.createQueryBuilder().update(Person).set(attributes).where("id = :personId", { personId });
  const differs = entries.map(([attribute], index) => {
    const column = em.connection.getMetadata(Person).findColumnWithPropertyName(attribute)!.databaseName;
    // BINARY: a change of case or of trailing spaces is a change, whatever the column's collation.
    return sqlite ? `${column} IS NOT :changed${index}` : `NOT (BINARY ${column} <=> :changed${index})`;
  });
  query.andWhere(
    `(${differs.join(" OR ")})`,
    Object.fromEntries(entries.map(([, value], index) => [`changed${index}`, value])),
  );
  const result = await query.execute();
  const changed = (result.affected ?? 0) > 0;
  // Every attribute here is part of the person's search document or display name.
  if (changed) await writeSearchDocuments(em, { persons: [personId] });
  return changed;
}
