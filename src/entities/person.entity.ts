import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { IdColumn, StringColumn } from "./columns";
import { Organization } from "./organization.entity";

/** One human across all projects of an organization; its id is the wire `clogin_id`. */
@Entity("person")
@Index(["organizationId", "username"], { unique: true })
// The users search reads each registration's search document (registration_search), written
// from this row's names and emails by src/data/person-search.data.ts: a change to those columns
// goes through writeSearchDocuments in the same transaction.
export class Person {
  @PrimaryGeneratedColumn()
  id: number;

  @IdColumn()
  organizationId: number;

  @ManyToOne(() => Organization, { onDelete: "CASCADE" })
  @JoinColumn({ name: "organization_id" })
  organization?: Relation<Organization>;

  /** Null for a child made without a main email: it signs in through its parent (contract §9). */
  @StringColumn(254, { nullable: true })
  username: string | null;

  /** scrypt hash in `scrypt$N$r$p$salt$hash` form; null when the person has no password (e.g. a child). */
  @StringColumn(200, { nullable: true })
  passwordHash: string | null;

  @StringColumn(254, { nullable: true })
  mainEmail: string | null;

  @StringColumn(100, { nullable: true })
  firstName: string | null;

  @StringColumn(100, { nullable: true })
  lastName: string | null;

  @StringColumn(200, { nullable: true })
  orgName: string | null;
}
