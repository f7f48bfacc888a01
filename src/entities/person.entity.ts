import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { IdColumn, StringColumn } from "./columns";
import { Organization } from "./organization.entity";

/** The MySQL/MariaDB FULLTEXT index the users search reads. */
export const PERSON_SEARCH_INDEX = "IDX_person_search";

/** One human across all projects of an organization; its id is the wire `clogin_id`. */
@Entity("person")
@Index(["organizationId", "username"], { unique: true })
// The users search (docs/graphql.md, "Search"): on MySQL/MariaDB a FULLTEXT index over first_name,
// last_name, username and main_email, made by its migration (without stopwords) and declared here
// only by name, so that schema synchronization keeps it and makes nothing of it on SQLite. SQLite
// keeps the FTS5 table person_search instead (src/migrations/sqlite/). On SQLite a change to this
// entity's columns makes synchronize rebuild the table, which drops person_search's triggers:
// such a change needs an SQLite migration that recreates them and rebuilds person_search.
@Index(PERSON_SEARCH_INDEX, { synchronize: false })
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
