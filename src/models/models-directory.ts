// Where pulled models live: <spark home>/models, so SPARK_HOME moves them with everything else.
import path from "node:path";

export function modelsDirectory(sparkHome: string): string {
  return path.join(sparkHome, "models");
}
