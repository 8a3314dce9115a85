// The two database engines the service runs on (service/db/database.ts opens either); its own module so
// the migrations and the data modules can name it without importing the store.

export type Engine = "sqlite" | "postgres";
