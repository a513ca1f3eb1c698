export { type CreateAjvOptions, createAjv, type SchemaOrigin } from './ajv';
