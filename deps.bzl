"""The external repositories atenaot's BUILD files use, for a workspace that depends
on atenaot through local_repository (all local paths: Bazel stays offline).

    local_repository(name = "atenaot", path = "../atenaot")
    load("@atenaot//:deps.bzl", "atenaot_dependencies")
    atenaot_dependencies(atenaot_path = "../atenaot")

Repositories the workspace already defines are left alone.
"""

load("@atenaot//tools/library_rule:local_config.bzl", "atenaot_local_config")

def _local(name, path):
    if not native.existing_rule(name):
        native.local_repository(name = name, path = path)

def _system(name):
    if not native.existing_rule(name):
        native.new_local_repository(name = name, path = "/usr", build_file = "@atenaot//third_party:%s.BUILD" % name)

def atenaot_dependencies(atenaot_path):
    """Defines rules_cc, rules_java, platforms, remote_coverage_tools, libtorch, gtest, benchmark.

    Args:
      atenaot_path: where atenaot is, as given to its local_repository.
    """
    _local("rules_cc", atenaot_path + "/third_party/rules_cc")
    _local("rules_java", "/usr/share/bazel/rules/java")
    _local("platforms", "/usr/share/bazel/tools/platforms")
    _local("remote_coverage_tools", atenaot_path + "/third_party/remote_coverage_tools")
    for name in ("libtorch", "gtest", "benchmark"):
        _system(name)
    if not native.existing_rule("atenaot_local_config"):
        atenaot_local_config(name = "atenaot_local_config")
