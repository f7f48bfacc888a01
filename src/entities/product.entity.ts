import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { DateTimeColumn, FlagColumn, IdColumn, MoneyCentsColumn, StringColumn, TextColumn } from "./columns";
import { ProductCategory } from "./product-category.entity";
import { Project } from "./project.entity";

/** The wire `base_product_type`: 5 is made by the system and cannot be created through the API. */
export const PRODUCT_BASE_TYPES = {
  event: 1,
  discount: 2,
  sessionHolder: 3,
  session: 4,
  system: 5,
  subscription: 6,
  merchandise: 7,
} as const;
export type ProductBaseType = (typeof PRODUCT_BASE_TYPES)[keyof typeof PRODUCT_BASE_TYPES];

/** Which registrations may buy it: everyone, parents (and individuals) only, or children only. */
export const PRODUCT_LEVELS = ["all", "parent", "child"] as const;
export type ProductLevel = (typeof PRODUCT_LEVELS)[number];

@Entity("product")
export class Product {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @IdColumn()
  projectId: number;

  @ManyToOne(() => Project, { onDelete: "CASCADE" })
  @JoinColumn({ name: "project_id" })
  project?: Relation<Project>;

  @StringColumn(200)
  name: string;

  @MoneyCentsColumn()
  priceCents: number;

  @IdColumn({ default: PRODUCT_BASE_TYPES.merchandise })
  baseType: ProductBaseType;

  @Index()
  @IdColumn({ nullable: true })
  categoryId: number | null;

  @ManyToOne(() => ProductCategory, { onDelete: "SET NULL" })
  @JoinColumn({ name: "category_id" })
  category?: Relation<ProductCategory> | null;

  /** The wire `product_type`: 0 all, 1 parent, 2 child. */
  @StringColumn(10, { default: "all" })
  level: ProductLevel;

  @DateTimeColumn({ nullable: true })
  availableFrom: Date | null;

  @DateTimeColumn({ nullable: true })
  availableUntil: Date | null;

  @FlagColumn()
  onlyOne: boolean;

  @FlagColumn()
  lockOnceFundsAllocated: boolean;

  @TextColumn({ nullable: true })
  remarks: string | null;

  @StringColumn(255, { nullable: true })
  location: string | null;

  @StringColumn(255, { nullable: true })
  internalId: string | null;

  @StringColumn(255, { nullable: true })
  misc1: string | null;

  @StringColumn(255, { nullable: true })
  misc2: string | null;

  /** The session holder (type 3) a session (type 4) belongs to. */
  @IdColumn({ nullable: true })
  parentProductId: number | null;

  @ManyToOne(() => Product, { onDelete: "CASCADE" })
  @JoinColumn({ name: "parent_product_id" })
  parentProduct?: Relation<Product> | null;

  /** Made for one user's cart by name; never offered to others. */
  @FlagColumn()
  isPrivate: boolean;
}
