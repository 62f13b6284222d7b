#!/usr/bin/python3
"""Traces models of the zoo (tests/models/zoo_models.py: torchvision with
random seeded weights, nothing downloaded; transformer layers, a GPT-style
block, ...) into OUT_DIR/NAME/: model.pt, input_K.npy and expected/. With no
NAME, the models issue 15 benchmarks (SPEED_MODELS). bench/make_results.sh
uses it for the compiled-vs-eager rows.

usage: /usr/bin/python3 bench/trace_models.py OUT_DIR [NAME...]
Needs Debian's python3-torch and python3-torchvision.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "models"))
import model_zoo  # noqa: E402

SPEED_MODELS = ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0", "squeezenet1_1",
                "googlenet", "densenet121", "transformer_encoder", "gpt_block", "bert_base_layer", "gpt2_block"]


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for name in argv[2:] or SPEED_MODELS:
        d = os.path.join(argv[1], name)
        model_zoo.trace(name, d)
        print("wrote", d)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
