// Validates Kubernetes manifests offline against the API's OpenAPI schemas
// (npm's kubernetes-models, generated from them; cert-manager's CRDs from
// @kubernetes-models/cert-manager): types, required fields, enums, formats.
//   node validate.mjs FILE.yaml...                 exit 0 all valid, 1 not
//   node validate.mjs --expect-invalid FILE.yaml   exit 0 when every file fails
// The kinds and API versions the project may use are pinned below: a
// manifest of any other kind or version is an error, not a pass.
import fs from "node:fs";
import yaml from "js-yaml";

const KINDS = {
  "v1/Namespace": "kubernetes-models/v1/Namespace",
  "v1/Service": "kubernetes-models/v1/Service",
  "v1/ServiceAccount": "kubernetes-models/v1/ServiceAccount",
  "v1/ConfigMap": "kubernetes-models/v1/ConfigMap",
  "apps/v1/DaemonSet": "kubernetes-models/apps/v1/DaemonSet",
  "apps/v1/StatefulSet": "kubernetes-models/apps/v1/StatefulSet",
  "batch/v1/Job": "kubernetes-models/batch/v1/Job",
  "networking.k8s.io/v1/NetworkPolicy": "kubernetes-models/networking.k8s.io/v1/NetworkPolicy",
  "cert-manager.io/v1/Certificate": "@kubernetes-models/cert-manager/cert-manager.io/v1/Certificate",
  "cert-manager.io/v1/Issuer": "@kubernetes-models/cert-manager/cert-manager.io/v1/Issuer",
};

// Multus' NetworkAttachmentDefinition has no published model: its schema is
// small (metadata plus a CNI JSON string), so it is checked here by hand.
function checkNetworkAttachment(doc) {
  const problems = [];
  if (!doc.metadata || typeof doc.metadata.name !== "string") problems.push("metadata.name missing");
  const config = doc.spec && doc.spec.config;
  if (typeof config !== "string") return problems.concat("spec.config must be a string of CNI JSON");
  try {
    const cni = JSON.parse(config);
    for (const key of ["cniVersion", "type"]) {
      if (typeof cni[key] !== "string") problems.push(`spec.config: CNI "${key}" missing`);
    }
  } catch (e) {
    problems.push(`spec.config is not JSON: ${e.message}`);
  }
  return problems;
}

// Returns a list of problems with one document (empty when valid).
async function check(doc) {
  if (!doc || typeof doc !== "object") return ["not a mapping"];
  const key = `${doc.apiVersion}/${doc.kind}`;
  if (key === "k8s.cni.cncf.io/v1/NetworkAttachmentDefinition") return checkNetworkAttachment(doc);
  const module = KINDS[key];
  if (!module) return [`kind ${key} is not one the project pins (add it to KINDS after review)`];
  const Model = (await import(module))[doc.kind];
  try {
    new Model(doc).validate();
    return [];
  } catch (e) {
    return [e.message];
  }
}

const args = process.argv.slice(2);
const expectInvalid = args[0] === "--expect-invalid";
const files = expectInvalid ? args.slice(1) : args;
if (files.length === 0) {
  console.error("usage: node validate.mjs [--expect-invalid] FILE.yaml...");
  process.exit(2);
}
let failedFiles = 0;
let documents = 0;
for (const file of files) {
  let docs;
  try {
    docs = yaml.loadAll(fs.readFileSync(file, "utf8")).filter((d) => d !== null);
  } catch (e) {
    console.log(`${file}: not YAML: ${e.message.split("\n")[0]}`);
    failedFiles++;
    continue;
  }
  let bad = docs.length === 0;
  if (bad) console.log(`${file}: no documents`);
  for (const doc of docs) {
    documents++;
    const name = `${doc && doc.kind}/${doc && doc.metadata && doc.metadata.name}`;
    const problems = await check(doc);
    for (const p of problems) console.log(`${file}: ${name}: ${p}`);
    if (problems.length) bad = true;
    else if (!expectInvalid) console.log(`${file}: ${name}: valid`);
  }
  if (bad) failedFiles++;
}
if (expectInvalid) {
  console.log(`${failedFiles} of ${files.length} files rejected, as expected: ${failedFiles === files.length}`);
  process.exit(failedFiles === files.length ? 0 : 1);
}
console.log(`${documents} documents in ${files.length} files, ${failedFiles} files invalid`);
process.exit(failedFiles ? 1 : 0);
