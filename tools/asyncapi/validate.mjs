// Validate an AsyncAPI document with the official parser (schema + semantic rules); exit 1 on any error.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { Parser } from '@asyncapi/parser'

const SEVERITY = ['error', 'warning', 'info', 'hint']
const path = resolve(process.argv[2] ?? '../../docs/contract/asyncapi.json')
const { document, diagnostics } = await new Parser().parse(readFileSync(path, 'utf8'), { source: path })
for (const d of diagnostics) {
  console.log(`${SEVERITY[d.severity]} ${d.code} at ${d.path.join('.') || '(root)'}: ${d.message}`)
}
const errors = diagnostics.filter(d => d.severity === 0).length
if (document === undefined || errors > 0) {
  console.error(`${path}: INVALID (${errors} errors)`)
  process.exit(1)
}
const channels = document.channels().length
const messages = document.allMessages().length
console.log(`${path}: valid AsyncAPI ${document.version()} (${channels} channels, ${messages} messages, ` +
  `${diagnostics.length} diagnostics, 0 errors)`)
