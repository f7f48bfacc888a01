import { AdminComment } from "./admin-comment.entity";
import { Admin, AdminProjectAccess } from "./admin.entity";
import { ApiAccount } from "./api-account.entity";
import { CartLine } from "./cart-line.entity";
import { EmailRecord } from "./email-record.entity";
import { EventFeed, EventRecord } from "./event.entity";
import { FieldValue } from "./field-value.entity";
import { Field } from "./field.entity";
import { FormTrigger } from "./form-trigger.entity";
import { Form } from "./form.entity";
import { IdempotencyKey } from "./idempotency-key.entity";
import { Organization } from "./organization.entity";
import { OutboxEmail } from "./outbox-email.entity";
import { Payment } from "./payment.entity";
import { Person } from "./person.entity";
import { ProductCategory } from "./product-category.entity";
import { Product } from "./product.entity";
import { ProjectCounter } from "./project-counter.entity";
import { Project } from "./project.entity";
import { LoginToken, RegistrantSession } from "./registrant-token.entity";
import { RegistrationForm } from "./registration-form.entity";
import { RegistrationTag } from "./registration-tag.entity";
import { Registration } from "./registration.entity";
import { Status } from "./status.entity";
import { Tag } from "./tag.entity";
import { TriggerFiring } from "./trigger-firing.entity";
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from "./webhook.entity";

export * from "./admin-comment.entity";
export * from "./admin.entity";
export * from "./api-account.entity";
export * from "./cart-line.entity";
export * from "./email-record.entity";
export * from "./event.entity";
export * from "./field-value.entity";
export * from "./field.entity";
export * from "./form-trigger.entity";
export * from "./form.entity";
export * from "./idempotency-key.entity";
export * from "./organization.entity";
export * from "./outbox-email.entity";
export * from "./payment.entity";
export * from "./person.entity";
export * from "./product-category.entity";
export * from "./product.entity";
export * from "./project-counter.entity";
export * from "./project.entity";
export * from "./registrant-token.entity";
export * from "./registration-form.entity";
export * from "./registration-tag.entity";
export * from "./registration.entity";
export * from "./status.entity";
export * from "./tag.entity";
export * from "./trigger-firing.entity";
export * from "./webhook.entity";

/** Every entity, passed to the DataSource by reference (globs are deprecated in TypeORM 1). */
export const ENTITIES = [
  Organization,
  ApiAccount,
  Admin,
  AdminProjectAccess,
  Project,
  Form,
  Field,
  Status,
  Tag,
  ProductCategory,
  Product,
  FormTrigger,
  Person,
  Registration,
  RegistrationForm,
  FieldValue,
  RegistrationTag,
  AdminComment,
  CartLine,
  Payment,
  ProjectCounter,
  EmailRecord,
  TriggerFiring,
  OutboxEmail,
  LoginToken,
  RegistrantSession,
  IdempotencyKey,
  EventRecord,
  EventFeed,
  WebhookEndpoint,
  WebhookDelivery,
  WebhookAttempt,
];
