#!/usr/bin/env bash
# The SAM template's checks: `sam validate --lint`, then cfn-lint on the template translated
# to plain CloudFormation offline (cfn-lint alone no longer expands SAM resources).
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p target
SAM_CLI_TELEMETRY=0 .venv/bin/sam validate --lint --region us-east-1 -t template.yaml
.venv/bin/python tests/deploy/translate.py template.yaml target/template.cfn.json
.venv/bin/cfn-lint target/template.cfn.json
echo "template checks: sam validate --lint and cfn-lint on the translated template passed"
