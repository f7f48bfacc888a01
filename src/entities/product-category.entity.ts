import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { FlagColumn, IdColumn, StringColumn, TextColumn } from "./columns";
import { Project } from "./project.entity";

/** A group of a project's products with shared cart rules (quota, one-of, mandatory). */
@Entity("product_category")
@Index(["projectId", "nameKey"], { unique: true })
export class ProductCategory {
  @PrimaryGeneratedColumn()
  id: number;

  @IdColumn()
  projectId: number;

  @ManyToOne(() => Project, { onDelete: "CASCADE" })
  @JoinColumn({ name: "project_id" })
  project?: Relation<Project>;

  @StringColumn(200)
  name: string;

  /** Lower-cased name: the unique index makes names case-insensitively unique, even under races. */
  @StringColumn(200)
  nameKey: string;

  @TextColumn({ nullable: true })
  topRemark: string | null;

  @TextColumn({ nullable: true })
  bottomRemark: string | null;

  /** Most units of this category's products one cart may hold; null is unlimited. */
  @IdColumn({ nullable: true })
  quotaOrdered: number | null;

  /** At most one cart line of this category's products (the products are interchangeable). */
  @FlagColumn()
  interchange: boolean;

  /** Stored and shown; nothing enforces it yet. */
  @FlagColumn()
  mandatory: boolean;
}
