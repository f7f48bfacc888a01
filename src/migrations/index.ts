import { IdempotencyKeys1795397342283 } from "./1795397342283-IdempotencyKeys";
import { InitialSchema1795255423821 } from "./1795255423821-InitialSchema";
import { EventsAndWebhooks1795396921974 } from "./1795396921974-EventsAndWebhooks";
import { ApiKeyRotation1795387142761 } from "./1795387142761-ApiKeyRotation";
import { ProductsCategoriesUtm1795386963241 } from "./1795386963241-ProductsCategoriesUtm";
import { ChildUsernameOptional1795388587480 } from "./1795388587480-ChildUsernameOptional";
import { RegistrantSessions1795387373854 } from "./1795387373854-RegistrantSessions";
import { UserListPageIndex1795388242981 } from "./1795388242981-UserListPageIndex";
import { ProjectCounters1795397156494 } from "./1795397156494-ProjectCounters";
import { RegistrationProjectUidIndex1795410047356 } from "./1795410047356-RegistrationProjectUidIndex";
import { ProjectCounterSlots1795642095480 } from "./1795642095480-ProjectCounterSlots";
import { FeedAndUpdatedAt1795710000000 } from "./1795710000000-FeedAndUpdatedAt";
import { ApiKeyScopes1795700000000 } from "./1795700000000-ApiKeyScopes";
import { PersonSearch1795868750901 } from "./1795868750901-PersonSearch";
import { RegistrationAppliedIndex1795872000000 } from "./1795872000000-RegistrationAppliedIndex";
import { PersonSearchSqlite1795868750901 } from "./sqlite/1795868750901-PersonSearchSqlite";
import { RegistrationSearch1795900000000 } from "./1795900000000-RegistrationSearch";
import { RegistrationSearchSqlite1795900000000 } from "./sqlite/1795900000000-RegistrationSearchSqlite";
import { SearchFoldedText1796000000000 } from "./1796000000000-SearchFoldedText";
import { RegistrationWords1796100000000 } from "./1796100000000-RegistrationWords";
import { SearchIndexRebuild1796200000000 } from "./1796200000000-SearchIndexRebuild";
import { SearchFoldedTextSqlite1796000000000 } from "./sqlite/1796000000000-SearchFoldedTextSqlite";

// Migrations for MySQL/MariaDB, listed by reference (TypeORM 1 deprecates globs), in timestamp
// order. Add each new one here; never edit one that has landed.
export const MIGRATIONS: (new () => object)[] = [
  InitialSchema1795255423821,
  ProductsCategoriesUtm1795386963241,
  ApiKeyRotation1795387142761,
  RegistrantSessions1795387373854,
  UserListPageIndex1795388242981,
  ChildUsernameOptional1795388587480,
  EventsAndWebhooks1795396921974,
  ProjectCounters1795397156494,
  IdempotencyKeys1795397342283,
  RegistrationProjectUidIndex1795410047356,
  ProjectCounterSlots1795642095480,
  ApiKeyScopes1795700000000,
  FeedAndUpdatedAt1795710000000,
  PersonSearch1795868750901,
  RegistrationAppliedIndex1795872000000,
  RegistrationSearch1795900000000,
  SearchFoldedText1796000000000,
  RegistrationWords1796100000000,
  SearchIndexRebuild1796200000000,
];

// SQLite synchronizes its schema from the entities; these make what entities cannot declare
// (the FTS5 table of the users search), run after synchronization.
export const SQLITE_MIGRATIONS: (new () => object)[] = [
  PersonSearchSqlite1795868750901,
  RegistrationSearchSqlite1795900000000,
  SearchFoldedTextSqlite1796000000000,
];
