"""Translates the SAM template to plain CloudFormation offline, so cfn-lint can check the
expanded resources (cfn-lint alone no longer expands SAM resources)."""

import json
import os
import sys

import yaml
from samtranslator.translator.transform import transform


def _intrinsic(loader, tag_suffix, node):
    """`!Ref x` -> {"Ref": "x"}, `!GetAtt a.b` -> {"Fn::GetAtt": ["a", "b"]}, `!Sub ...` -> {"Fn::Sub": ...}."""
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if tag_suffix == "Ref":
        return {"Ref": value}
    if tag_suffix == "GetAtt" and isinstance(value, str):
        value = value.split(".", 1)
    return {f"Fn::{tag_suffix}": value}


class CfnLoader(yaml.SafeLoader):
    pass


CfnLoader.add_multi_constructor("!", _intrinsic)


def yaml_parse(text):
    return yaml.load(text, Loader=CfnLoader)


class OfflinePolicies:
    """No AWS calls: the template names no AWS managed policies by name."""

    def load(self):
        return {}


def main(src: str, dst: str) -> None:
    # The translator asks boto for a region; any will do offline.
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    with open(src, encoding="utf-8") as f:
        template = yaml_parse(f.read())
    # What `sam package` does: local code folders become S3 locations (placeholders here).
    for name, resource in template.get("Resources", {}).items():
        props = resource.get("Properties", {})
        if resource.get("Type") == "AWS::Serverless::Function" and not str(props.get("CodeUri", "")).startswith("s3://"):
            props["CodeUri"] = f"s3://offline-check/{name}.zip"
    parameters = {"AWS::Region": "us-east-1", "AWS::AccountId": "123456789012", "AWS::Partition": "aws"}
    cfn = transform(template, parameters, OfflinePolicies())
    with open(dst, "w", encoding="utf-8") as f:
        json.dump(cfn, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
