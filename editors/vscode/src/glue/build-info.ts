// What esbuild.mjs writes into the bundle: the clone the extension was built from, so the
// launcher can run that clone's bin/spark.js where `spark` is not on PATH.
declare const SPARK_BUILD_REPOSITORY: string | undefined;

export const buildRepository: string | undefined =
  typeof SPARK_BUILD_REPOSITORY === "string" ? SPARK_BUILD_REPOSITORY : undefined;
