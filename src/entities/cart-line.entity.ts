import { Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, type Relation } from "typeorm";
import { DateTimeColumn, IdColumn, MoneyCentsColumn, TextColumn } from "./columns";
import { Product } from "./product.entity";
import { Registration } from "./registration.entity";

/** A product in a registration's cart; the price is copied so later price changes do not rewrite orders. */
@Entity("cart_line")
export class CartLine {
  @PrimaryGeneratedColumn()
  id: number;

  @Index()
  @IdColumn()
  registrationId: number;

  @ManyToOne(() => Registration, { onDelete: "CASCADE" })
  @JoinColumn({ name: "registration_id" })
  registration?: Relation<Registration>;

  @IdColumn()
  productId: number;

  @ManyToOne(() => Product, { onDelete: "RESTRICT" })
  @JoinColumn({ name: "product_id" })
  product?: Relation<Product>;

  @IdColumn({ default: 1 })
  quantity: number;

  @MoneyCentsColumn()
  unitPriceCents: number;

  @DateTimeColumn()
  createdAt: Date;

  /** The wire `product_remark`. */
  @TextColumn({ nullable: true })
  remark: string | null;

  /** First day of a subscription (type 6); stored at midnight UTC. */
  @DateTimeColumn({ nullable: true })
  recurringStartDate: Date | null;
}
