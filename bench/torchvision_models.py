#!/usr/bin/python3
"""Traces torchvision's MobileNetV2 and ResNet-18 (random weights, seeded, no
download; eval mode, input 1x3x224x224) into OUT_DIR/NAME/: model.pt,
input_0.npy and expected/output_0.npy (eager PyTorch), the layout of
examples/NAME/. bench/make_results.sh uses it for the compiled-vs-eager rows.

usage: /usr/bin/python3 bench/torchvision_models.py OUT_DIR [NAME...]
Needs Debian's python3-torch and python3-torchvision.
"""

import sys

import _common


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for name in argv[2:] or _common.TORCHVISION:
        print("wrote", _common.torchvision_model(name, argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
