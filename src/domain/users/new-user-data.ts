import type { MemberProblem } from "../errors";
import { isEmailAddress } from "../../shared/email";
import type { CreateUserCommand } from "./user-commands";
import { clientValue } from "../../shared/client-value";

// The person data of `create` (contract §7): checked before anything is hashed or written.

export const MIN_PASSWORD_LENGTH = 6;
// scrypt takes any length; the cap only keeps a request from making the hash expensive.
export const MAX_PASSWORD_LENGTH = 200;

const LIMITS = { username: 254, main_email: 254, first_name: 100, last_name: 100, org_name: 200 } as const;

export interface PersonData {
  username: string | null;
  password: string | null;
  mainEmail: string | null;
  firstName: string | null;
  lastName: string | null;
  orgName: string | null;
}

const clean = (value: string | undefined) => (value === undefined ? null : value.trim());

/**
 * The person data of a create command, trimmed, with its problems (paths are wire paths).
 * A new person needs a valid main_email; the username defaults to it.
 */
export function readPersonData(
  cmd: CreateUserCommand,
  newPerson: boolean,
): { data: PersonData; problems: MemberProblem[] } {
  const problems: MemberProblem[] = [];
  const data: PersonData = {
    username: clean(cmd.username) || null,
    password: cmd.password ?? null,
    mainEmail: clean(cmd.mainEmail) || null,
    firstName: clean(cmd.firstName),
    lastName: clean(cmd.lastName),
    orgName: clean(cmd.orgName),
  };
  const tooLong = (path: keyof typeof LIMITS, value: string | null) => {
    if (value !== null && value.length > LIMITS[path])
      problems.push({ path: `doc.${path}`, message: `doc.${path} must have at most ${LIMITS[path]} characters.` });
  };
  if (data.mainEmail === null) {
    if (newPerson) problems.push({ path: "doc.main_email", message: "doc.main_email is required for a new user." });
  } else if (!isEmailAddress(data.mainEmail)) {
    problems.push({
      path: "doc.main_email",
      message: `doc.main_email ${clientValue(data.mainEmail)} is not a valid email address.`,
    });
  }
  if (newPerson) {
    tooLong("username", data.username);
    if (data.password !== null && data.password.length < MIN_PASSWORD_LENGTH) {
      problems.push({
        path: "doc.password",
        message: `doc.password must have at least ${MIN_PASSWORD_LENGTH} characters.`,
      });
    } else if (data.password !== null && data.password.length > MAX_PASSWORD_LENGTH) {
      problems.push({
        path: "doc.password",
        message: `doc.password must have at most ${MAX_PASSWORD_LENGTH} characters.`,
      });
    }
  }
  tooLong("main_email", data.mainEmail);
  tooLong("first_name", data.firstName);
  tooLong("last_name", data.lastName);
  tooLong("org_name", data.orgName);
  return { data, problems };
}
