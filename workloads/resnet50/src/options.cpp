// Parses the resnet50 workload's flags with CLI11.
#include "options.hpp"

#include <CLI/CLI.hpp>

#include <iostream>
#include <map>

namespace amdahl::resnet {

bool parse_options(int argc, char** argv, Options& out, int& exit_code) {
  CLI::App app{"ResNet-50 v1.5 training on synthetic ImageNet-shaped data (cuDNN, NHWC)"};
  std::string precision = "fp32", data = "device";
  app.add_option("--precision", precision, "fp32 | tf32 | fp16 | bf16")
      ->check(CLI::IsMember({"fp32", "tf32", "fp16", "bf16"}));
  app.add_option("--batch-size", out.batch_size, "images per step")->check(CLI::Range(1, 4096));
  app.add_option("--steps", out.steps, "timed steps")->check(CLI::Range(1, 1000000));
  app.add_option("--warmup-steps", out.warmup_steps, "untimed steps first")
      ->check(CLI::Range(0, 1000000));
  app.add_option("--data", data,
                 "device: one synthetic batch kept on the GPU; host: a batch prepared on the "
                 "host each step and copied")
      ->check(CLI::IsMember({"device", "host"}));
  app.add_flag("--pinned", out.pinned, "with --data host: page-locked host buffer");
  app.add_option("--lr", out.lr, "SGD learning rate");
  app.add_option("--image-size", out.image, "input height and width")->check(CLI::Range(32, 1024));
  app.add_option("--classes", out.classes, "number of classes")->check(CLI::Range(2, 100000));
  app.add_option("--seed", out.seed, "seed for weights and data");
  app.add_flag("--quiet", out.quiet, "print only the result line");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    exit_code = app.exit(e) == 0 ? 0 : 1;
    return false;
  }
  out.precision = *dnn::parse_precision(precision);
  out.data = data == "host" ? DataSource::host : DataSource::device;
  return true;
}

}  // namespace amdahl::resnet
