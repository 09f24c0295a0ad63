/** Writes the OpenAPI document to a file (`npm run openapi` writes docs/openapi.json). */
import { writeFileSync } from 'node:fs';
import { buildOpenApi } from './openapi.js';

export function openApiText(): string {
  return `${JSON.stringify(buildOpenApi(), null, 2)}\n`;
}

export function writeOpenApiFile(path: string): void {
  writeFileSync(path, openApiText());
}
