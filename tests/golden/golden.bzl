"""One sh_test per golden file: run_golden.sh executes its RUN lines."""

def golden_tests(files, data = []):
    for f in files:
        native.sh_test(
            name = f.replace("/", "_").replace(".", "_"),
            srcs = ["//tests/golden:run_golden.sh"],
            args = ["$(location //:atenaot)", "$(location %s)" % f],
            data = ["//:atenaot", f] + data,
            size = "small",
        )
