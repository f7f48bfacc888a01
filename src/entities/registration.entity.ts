import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { Admin } from "./admin.entity";
import { DateTimeColumn, FlagColumn, IdColumn, StringColumn } from "./columns";
import { Person } from "./person.entity";
import { Project } from "./project.entity";
import { Status } from "./status.entity";

/** A person registered in a project (the wire "user"); `uid` is its own id. */
@Entity("registration")
@Index(["projectId", "personId"], { unique: true })
// Children of a parent by status: the summary's non_excluded_children and the counters' family
// moves seek it by (project, parent) and never walk the project's other registrations.
@Index("IDX_registration_children", ["projectId", "connectedTo", "statusId"])
@Index(["projectId", "statusId"])
// Covering index of get_user_list pages: parents (connected_to NULL) in uid order with their
// status, so a page and a skip to a position read the index only.
@Index("IDX_registration_list_page", ["projectId", "connectedTo", "uid", "statusId"])
// A project's registrations in uid order (GraphQL users pages, forward and backward): a page reads
// its rows off this index whatever the statistics say. Without it MySQL/MariaDB choose between
// walking the primary key and sorting the whole project by statistics alone, and the choice flips.
@Index("IDX_registration_project_uid", ["projectId", "uid"])
// Changes since a time (get_user_list modified_since, users updatedSince): a project's
// registrations in (updated_at, uid) order, with what the list filters on, read off the index.
@Index("IDX_registration_updated", ["projectId", "updatedAt", "uid", "connectedTo", "statusId"])
// GraphQL users pages ordered by application date (orderBy APPLICATION_DATE, either direction):
// the page reads its rows off the index in order, as a uid-ordered page does.
@Index("IDX_registration_applied", ["projectId", "applicationDate", "uid"])
// GraphQL users pages ordered by name (orderBy NAME, either direction), read off the index in order.
@Index("IDX_registration_name", ["projectId", "sortName", "uid"])
export class Registration {
  @PrimaryGeneratedColumn()
  uid: number;

  @IdColumn()
  projectId: number;

  @ManyToOne(() => Project, { onDelete: "CASCADE" })
  @JoinColumn({ name: "project_id" })
  project?: Relation<Project>;

  @Index()
  @IdColumn()
  personId: number;

  @ManyToOne(() => Person, { onDelete: "CASCADE" })
  @JoinColumn({ name: "person_id" })
  person?: Relation<Person>;

  /** clogin_id of the parent registration in the same project; null for parents and individuals. */
  @IdColumn({ nullable: true })
  connectedTo: number | null;

  @IdColumn({ nullable: true })
  statusId: number | null;

  @ManyToOne(() => Status, { onDelete: "SET NULL" })
  @JoinColumn({ name: "status_id" })
  status?: Relation<Status> | null;

  @FlagColumn()
  star: boolean;

  @DateTimeColumn()
  applicationDate: Date;

  /**
   * Last change to the registration, its values, forms, cart, status or emails: stamped once per
   * transaction when its unit of work completes (src/domain/unit-of-work.ts).
   */
  @DateTimeColumn()
  updatedAt: Date;

  /**
   * The NAME order's key: the person's display name (User.name) in lower case, written with the
   * registration's search document (src/data/person-search.data.ts) whenever the person changes.
   */
  @StringColumn(254, { default: "" })
  sortName: string;

  @IdColumn({ nullable: true })
  assignedAdminId: number | null;

  @ManyToOne(() => Admin, { onDelete: "SET NULL" })
  @JoinColumn({ name: "assigned_admin_id" })
  assignedAdmin?: Relation<Admin> | null;

  // Marketing attribution of the registration (the utm_* parameters of its first visit).
  @StringColumn(255, { nullable: true })
  utmCampaign: string | null;

  @StringColumn(255, { nullable: true })
  utmContent: string | null;

  @StringColumn(255, { nullable: true })
  utmId: string | null;

  @StringColumn(255, { nullable: true })
  utmMedium: string | null;

  @StringColumn(255, { nullable: true })
  utmSource: string | null;

  @StringColumn(255, { nullable: true })
  utmTerm: string | null;
}
