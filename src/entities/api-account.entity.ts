import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { DateTimeColumn, FlagColumn, IdColumn, StringColumn, TextColumn } from "./columns";
import { Organization } from "./organization.entity";

/** Credentials of an API client: Api-Id is `id`, Api-User is `apiUser`; the token is kept only as a hash. */
@Entity("api_account")
export class ApiAccount {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @IdColumn()
  organizationId: number;

  @ManyToOne(() => Organization, { onDelete: "CASCADE" })
  @JoinColumn({ name: "organization_id" })
  organization?: Relation<Organization>;

  @StringColumn(254)
  apiUser: string;

  /** SHA-256 of the token, hex. Tokens are random and long, so a fast hash suffices. */
  @StringColumn(64)
  tokenHash: string;

  /**
   * After `regapi api-key rotate`, the replaced token's hash, accepted until
   * `previousTokenExpiresAt` so clients can switch without an outage.
   */
  @StringColumn(64, { nullable: true })
  previousTokenHash: string | null;

  @DateTimeColumn({ nullable: true })
  previousTokenExpiresAt: Date | null;

  @FlagColumn({ default: true })
  active: boolean;

  /**
   * The scope names the key is limited to, comma-separated (`read,users.update`); null: every
   * operation. Keys made before scopes existed are null and keep full access.
   */
  @TextColumn({ nullable: true })
  scopeOperations: string | null;

  /** The project ids (group_id) the key is limited to, comma-separated; null: every project. */
  @TextColumn({ nullable: true })
  scopeGroupIds: string | null;

  @DateTimeColumn()
  createdAt: Date;
}
