import type { EntityManager } from "typeorm";
import { ApiAccount } from "../entities";

/** The API account read model is the entity: id, organization, user name, token hash, active flag. */
export type ApiAccountRecord = ApiAccount;

export async function findApiAccount(em: EntityManager, id: number): Promise<ApiAccountRecord | null> {
  return em.findOne(ApiAccount, { where: { id } });
}
