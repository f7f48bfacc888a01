import { generateApiToken, hashApiToken } from "../auth/secrets";
import type { RequestContext } from "../domain/context";
import { DomainError, validationFailed } from "../domain/errors";
import { inTransaction } from "../domain/transaction";
import { ApiAccount, Organization } from "../entities";
import { isEmailAddress } from "../shared/email";

export interface NewApiKey {
  apiId: number;
  apiUser: string;
  /** The only time the token exists in clear: the database keeps its SHA-256 hash. */
  apiToken: string;
}

/** Creates an active API account with a fresh random token for an existing organization. */
export async function createApiKey(ctx: RequestContext, organizationId: number, apiUser: string): Promise<NewApiKey> {
  const user = apiUser.trim();
  if (!isEmailAddress(user)) {
    throw validationFailed([{ path: ["--user"], message: `is not an email address: ${JSON.stringify(apiUser)}` }]);
  }
  const apiToken = generateApiToken();
  return inTransaction(ctx, async ({ em }) => {
    if (!(await em.findOne(Organization, { where: { id: organizationId } }))) {
      throw new DomainError("NOT_FOUND", `organization ${organizationId} does not exist`);
    }
    const inserted = await em.insert(ApiAccount, {
      organizationId,
      apiUser: user,
      tokenHash: hashApiToken(apiToken),
      active: true,
      createdAt: new Date(),
    });
    return { apiId: Number(inserted.identifiers[0].id), apiUser: user, apiToken };
  });
}
