export { nameRoutes, namesRouter } from './name-routes';
export { nameLookupRoutes } from './routes/name-lookup-routes';
export { knexNamesDb, pooledNamesDb } from './datastore/names-db';
export { NAME_LOOKUP_STATEMENTS } from './datastore/name-lookup-statements';
