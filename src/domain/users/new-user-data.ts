import type { Problem } from "../errors";
import { isEmailAddress } from "../../common/email";
import { PERSON_FIELD_MAX_LENGTH } from "./person-fields";
import type { CreateUserCommand } from "./user-commands";
import { clientValue } from "../../common/client-value";

// The person data of `create` (contract §7): checked before anything is hashed or written.

export const MIN_PASSWORD_LENGTH = 6;
// scrypt takes any length; the cap only keeps a request from making the hash expensive.
export const MAX_PASSWORD_LENGTH = 200;

const LIMITS = PERSON_FIELD_MAX_LENGTH;

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
export function readPersonData(
  cmd: CreateUserCommand,
  newPerson: boolean,
  options: { mainEmailRequired: boolean } = { mainEmailRequired: true },
): { data: PersonData; problems: Problem[] } {
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
      problems.push({
        path: [path],
        reason: "TOO_LONG",
        message: `must have at most ${LIMITS[path]} characters`,
        value,
      });
  };
  if (data.mainEmail === null) {
    if (newPerson && options.mainEmailRequired)
      problems.push({ path: ["mainEmail"], reason: "REQUIRED", message: "is required for a new user" });
  } else if (!isEmailAddress(data.mainEmail)) {
    problems.push({
      path: ["mainEmail"],
      reason: "INVALID_EMAIL",
      message: `is not a valid email address: ${clientValue(data.mainEmail)}`,
      value: data.mainEmail,
    });
  }
  if (newPerson) {
    tooLong("username", data.username);
    if (data.password !== null && data.password.length < MIN_PASSWORD_LENGTH) {
      problems.push({
        path: ["password"],
        reason: "TOO_SHORT",
        message: `must have at least ${MIN_PASSWORD_LENGTH} characters`,
      });
    } else if (data.password !== null && data.password.length > MAX_PASSWORD_LENGTH) {
      problems.push({
        path: ["password"],
        reason: "TOO_LONG",
        message: `must have at most ${MAX_PASSWORD_LENGTH} characters`,
      });
    }
  }
  tooLong("mainEmail", data.mainEmail);
  tooLong("firstName", data.firstName);
  tooLong("lastName", data.lastName);
  tooLong("orgName", data.orgName);
  return { data, problems };
}
