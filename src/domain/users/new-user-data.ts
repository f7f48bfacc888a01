import type { Problem } from "../errors";
import { isEmailAddress } from "../../shared/email";
import type { CreateUserCommand } from "./user-commands";

// The person data of `create` (contract §7): checked before anything is hashed or written.

export const MIN_PASSWORD_LENGTH = 6;
// scrypt takes any length; the cap only keeps a request from making the hash expensive.
export const MAX_PASSWORD_LENGTH = 200;

const LIMITS = { username: 254, mainEmail: 254, firstName: 100, lastName: 100, orgName: 200 } as const;

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
 * The person data of a create command, trimmed, with its problems (paths are the command's member names).
 * A new person needs a valid main_email; the username defaults to it.
 */
export function readPersonData(cmd: CreateUserCommand, newPerson: boolean): { data: PersonData; problems: Problem[] } {
  const problems: Problem[] = [];
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
      problems.push({ path: [path], message: `must have at most ${LIMITS[path]} characters` });
  };
  if (data.mainEmail === null) {
    if (newPerson) problems.push({ path: ["mainEmail"], message: "is required for a new user" });
  } else if (!isEmailAddress(data.mainEmail)) {
    problems.push({ path: ["mainEmail"], message: `is not a valid email address: ${JSON.stringify(data.mainEmail)}` });
  }
  if (newPerson) {
    tooLong("username", data.username);
    if (data.password !== null && data.password.length < MIN_PASSWORD_LENGTH) {
      problems.push({ path: ["password"], message: `must have at least ${MIN_PASSWORD_LENGTH} characters` });
    } else if (data.password !== null && data.password.length > MAX_PASSWORD_LENGTH) {
      problems.push({ path: ["password"], message: `must have at most ${MAX_PASSWORD_LENGTH} characters` });
    }
  }
  tooLong("mainEmail", data.mainEmail);
  tooLong("firstName", data.firstName);
  tooLong("lastName", data.lastName);
  tooLong("orgName", data.orgName);
  return { data, problems };
}
