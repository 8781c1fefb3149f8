// Correctness of the cuDNN layer library against double-precision CPU references on small
// shapes: conv2d (forward, backward-data with accumulation, backward-filter), batch norm
// (forward, saved statistics, backward; the CPU backward itself checked by finite differences),
// fully connected, max-pool, global average pool, softmax cross-entropy, ReLU/residual kernels,
// SGD with momentum and weight decay, and fp16 loss-scaler overflow handling.
#include <doctest/doctest.h>

#include "amdahl/dnn/batch_norm.hpp"
#include "amdahl/dnn/check.hpp"
#include "amdahl/dnn/conv2d.hpp"
#include "amdahl/dnn/elementwise.hpp"
#include "amdahl/dnn/linear.hpp"
#include "amdahl/dnn/loss.hpp"
#include "amdahl/dnn/optimizer.hpp"
#include "amdahl/dnn/pooling.hpp"
#include "gpu_test_util.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

using namespace amdahl;
using namespace amdahl::gpu_test;
using dnn::Precision;
using dnn::Shape4;

namespace {

std::size_t idx4(const Shape4& s, int n, int h, int w, int c) {
  return ((static_cast<std::size_t>(n) * s.h + h) * s.w + w) * s.c + c;
}

std::vector<double> to_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

#define CHECK_CLOSE(cmp)                 \
  do {                                   \
    const Compare c_ = (cmp);            \
    CHECK_MESSAGE(c_.ok, c_.message);    \
  } while (0)

// ---- convolution ----

struct ConvRef {
  std::vector<double> y, dx, dw;
};

ConvRef conv_reference(const dnn::ConvSpec& sp, Shape4 out, const std::vector<float>& x,
                       const std::vector<float>& w, const std::vector<float>& dy) {
  const Shape4 in = sp.input;
  const int R = sp.kernel, K = sp.out_channels;
  ConvRef r;
  r.y.assign(out.count(), 0.0);
  r.dx.assign(in.count(), 0.0);
  r.dw.assign(static_cast<std::size_t>(K) * R * R * in.c, 0.0);
  auto widx = [&](int k, int rr, int ss, int c) {
    return ((static_cast<std::size_t>(k) * R + rr) * R + ss) * in.c + c;
  };
  for (int n = 0; n < in.n; ++n)
    for (int oh = 0; oh < out.h; ++oh)
      for (int ow = 0; ow < out.w; ++ow)
        for (int k = 0; k < K; ++k) {
          double acc = 0;
          const double g = dy[idx4(out, n, oh, ow, k)];
          for (int rr = 0; rr < R; ++rr)
            for (int ss = 0; ss < R; ++ss) {
              const int ih = oh * sp.stride - sp.pad + rr, iw = ow * sp.stride - sp.pad + ss;
              if (ih < 0 || iw < 0 || ih >= in.h || iw >= in.w) continue;
              for (int c = 0; c < in.c; ++c) {
                const double xv = x[idx4(in, n, ih, iw, c)], wv = w[widx(k, rr, ss, c)];
                acc += xv * wv;
                r.dx[idx4(in, n, ih, iw, c)] += g * wv;
                r.dw[widx(k, rr, ss, c)] += g * xv;
              }
            }
          r.y[idx4(out, n, oh, ow, k)] = acc;
        }
  return r;
}

void run_conv_case(Precision p, dnn::ConvSpec sp, double tol, bool expect_plans = false) {
  dnn::Context ctx(p);
  dnn::Conv2d conv(ctx, sp);
  if (expect_plans) {
    CHECK_MESSAGE(conv.algos().fwd_plan != nullptr, "no backend engine plan for the forward pass");
    CHECK_MESSAGE(conv.algos().bwd_data_plan != nullptr, "no backend engine plan for backward-data");
    CHECK_MESSAGE(conv.algos().bwd_filter_plan != nullptr, "no backend engine plan for backward-filter");
  }
  const Shape4 out = conv.output_shape();
  INFO("precision " << dnn::to_string(p) << ", conv input " << sp.input.str() << " k="
                    << sp.out_channels << " kernel=" << sp.kernel << " stride=" << sp.stride
                    << " pad=" << sp.pad << ", algos fwd=" << conv.algos().fwd
                    << " bwd_data=" << conv.algos().bwd_data
                    << " bwd_filter=" << conv.algos().bwd_filter);
  auto x_d = upload(ctx, random_vector(sp.input.count(), 1));
  auto w_d = upload(ctx, random_vector(conv.weight_count(), 2, -0.5f, 0.5f));
  auto dy_d = upload(ctx, random_vector(out.count(), 3));
  // The reference uses the values as stored (rounded to the storage type).
  const auto x = download(ctx, x_d.get(), sp.input.count());
  const auto w = download(ctx, w_d.get(), conv.weight_count());
  const auto dy = download(ctx, dy_d.get(), out.count());
  const ConvRef ref = conv_reference(sp, out, x, w, dy);

  const std::size_t esz = dnn::dtype_size(ctx.act_type());
  dnn::DeviceBuffer y_d(out.count() * esz), dx_d(sp.input.count() * esz),
      dw_d(conv.weight_count() * esz);
  conv.forward(x_d.get(), w_d.get(), y_d.get());
  conv.backward_data(dy_d.get(), w_d.get(), dx_d.get());
  conv.backward_filter(x_d.get(), dy_d.get(), dw_d.get());
  CHECK_CLOSE(compare("conv forward y", download(ctx, y_d.get(), out.count()), ref.y, tol));
  CHECK_CLOSE(compare("conv backward-data dx", download(ctx, dx_d.get(), sp.input.count()), ref.dx, tol));
  CHECK_CLOSE(compare("conv backward-filter dw", download(ctx, dw_d.get(), conv.weight_count()), ref.dw, tol));

  // beta = 1 accumulates (the residual join's gradient relies on it).
  const auto prior = random_vector(sp.input.count(), 4);
  upload_into(ctx, prior, dx_d.get());
  const auto prior_stored = download(ctx, dx_d.get(), sp.input.count());
  conv.backward_data(dy_d.get(), w_d.get(), dx_d.get(), 1.f);
  std::vector<double> want(ref.dx);
  for (std::size_t i = 0; i < want.size(); ++i) want[i] += prior_stored[i];
  CHECK_CLOSE(compare("conv backward-data dx with beta=1", download(ctx, dx_d.get(), sp.input.count()), want, tol));
}

// ---- batch norm ----

struct BnRef {
  std::vector<double> y, dx, dgamma, dbeta, mean, inv_std;
};

BnRef bn_reference(Shape4 s, const std::vector<double>& x, const std::vector<double>& g,
                   const std::vector<double>& b, const std::vector<double>& dy, double eps) {
  const std::size_t C = static_cast<std::size_t>(s.c), M = s.count() / C;
  BnRef r;
  r.y.assign(s.count(), 0);
  r.dx.assign(s.count(), 0);
  r.dgamma.assign(C, 0);
  r.dbeta.assign(C, 0);
  r.mean.assign(C, 0);
  r.inv_std.assign(C, 0);
  for (std::size_t c = 0; c < C; ++c) {
    double mean = 0, var = 0;
    for (std::size_t m = 0; m < M; ++m) mean += x[m * C + c];
    mean /= static_cast<double>(M);
    for (std::size_t m = 0; m < M; ++m) var += (x[m * C + c] - mean) * (x[m * C + c] - mean);
    var /= static_cast<double>(M);
    const double inv = 1.0 / std::sqrt(var + eps);
    r.mean[c] = mean;
    r.inv_std[c] = inv;
    double sdy = 0, sdyx = 0;
    for (std::size_t m = 0; m < M; ++m) {
      const double xh = (x[m * C + c] - mean) * inv;
      r.y[m * C + c] = g[c] * xh + b[c];
      sdy += dy[m * C + c];
      sdyx += dy[m * C + c] * xh;
    }
    r.dbeta[c] = sdy;
    r.dgamma[c] = sdyx;
    for (std::size_t m = 0; m < M; ++m) {
      const double xh = (x[m * C + c] - mean) * inv;
      r.dx[m * C + c] = g[c] * inv * (dy[m * C + c] - sdy / M - xh * sdyx / M);
    }
  }
  return r;
}

// The layer's forward (optionally fused with ReLU or residual add + ReLU) and backward against
// bn_reference. With an activation, the reference output is max(y + residual, 0) and the
// backward's incoming gradient is masked by the GPU's own output (as the layer promises), so a
// rounding difference right at 0 cannot flip the mask between the two.
void run_bn_case(Precision p, Shape4 s, double tol,
                 dnn::BnActivation act = dnn::BnActivation::none) {
  dnn::Context ctx(p);
  const double eps = 1e-5;
  dnn::BatchNorm bn(ctx, s, eps, 0.1);
  INFO("precision " << dnn::to_string(p) << ", batch norm on " << s.str() << ", activation "
                    << static_cast<int>(act));
  const std::size_t C = static_cast<std::size_t>(s.c), M = s.count() / C;
  auto x_d = upload(ctx, random_vector(s.count(), 11, -2.f, 3.f));
  auto dy_d = upload(ctx, random_vector(s.count(), 12));
  auto res_d = upload(ctx, random_vector(s.count(), 15, -1.f, 1.f));
  const auto gamma = random_vector(C, 13, 0.5f, 1.5f), beta = random_vector(C, 14);
  dnn::DeviceBuffer g_d(C * 4), b_d(C * 4), dg_d(C * 4), db_d(C * 4);
  upload_f32(ctx, gamma, g_d.as<float>());
  upload_f32(ctx, beta, b_d.as<float>());
  const auto x = download(ctx, x_d.get(), s.count());
  const auto dy = download(ctx, dy_d.get(), s.count());
  const auto res = download(ctx, res_d.get(), s.count());

  const std::size_t esz = dnn::dtype_size(ctx.act_type());
  dnn::DeviceBuffer y_d(s.count() * esz), dx_d(s.count() * esz);
  bn.forward_train(x_d.get(), y_d.get(), g_d.as<float>(), b_d.as<float>(), act, res_d.get());
  const auto y_gpu = download(ctx, y_d.get(), s.count());
  const bool relu = act != dnn::BnActivation::none;
  std::vector<double> dy_eff = to_double(dy);
  if (relu)
    for (std::size_t i = 0; i < dy_eff.size(); ++i)
      if (!(y_gpu[i] > 0.f)) dy_eff[i] = 0;
  const BnRef ref = bn_reference(s, to_double(x), to_double(gamma), to_double(beta), dy_eff, eps);
  std::vector<double> y_want = ref.y;
  if (act == dnn::BnActivation::add_relu)
    for (std::size_t i = 0; i < y_want.size(); ++i) y_want[i] += res[i];
  if (relu)
    for (double& v : y_want) v = std::max(v, 0.0);

  bn.backward(x_d.get(), dy_d.get(), dx_d.get(), g_d.as<float>(), dg_d.as<float>(), db_d.as<float>(),
              relu ? y_d.get() : nullptr);
  CHECK_CLOSE(compare("bn forward y", y_gpu, y_want, tol));
  CHECK_CLOSE(compare("bn saved mean", download_f32(ctx, bn.saved_mean(), C), ref.mean, tol));
  CHECK_CLOSE(compare("bn saved inverse std 1/sqrt(var+eps)", download_f32(ctx, bn.saved_inv_std(), C), ref.inv_std, tol));
  std::vector<double> running_mean(ref.mean), running_var(C);
  for (double& v : running_mean) v *= 0.1;  // 0.9 * 0 + 0.1 * batch mean
  for (std::size_t c = 0; c < C; ++c) {     // 0.9 * 1 + 0.1 * unbiased batch variance
    const double var = 1.0 / (ref.inv_std[c] * ref.inv_std[c]) - eps;
    running_var[c] = 0.9 + 0.1 * var * static_cast<double>(M) / static_cast<double>(M - 1);
  }
  CHECK_CLOSE(compare("bn running mean after one step (momentum 0.1)", download_f32(ctx, bn.running_mean(), C), running_mean, tol));
  CHECK_CLOSE(compare("bn running var after one step (momentum 0.1, unbiased)", download_f32(ctx, bn.running_var(), C), running_var, tol));
  CHECK_CLOSE(compare("bn backward dx", download(ctx, dx_d.get(), s.count()), ref.dx, tol));
  CHECK_CLOSE(compare("bn backward dgamma", download_f32(ctx, dg_d.as<float>(), C), ref.dgamma, tol));
  CHECK_CLOSE(compare("bn backward dbeta", download_f32(ctx, db_d.as<float>(), C), ref.dbeta, tol));
}

}  // namespace

TEST_CASE("conv2d matches a double-precision reference (fp32, no TF32)") {
  run_conv_case(Precision::fp32, dnn::ConvSpec{Shape4{2, 7, 6, 5}, 4, 3, 2, 1, true}, 1e-4);
  run_conv_case(Precision::fp32, dnn::ConvSpec{Shape4{2, 5, 5, 8}, 16, 3, 1, 1, true}, 1e-4);
  run_conv_case(Precision::fp32, dnn::ConvSpec{Shape4{3, 4, 4, 16}, 8, 1, 1, 0, true}, 1e-4);
  run_conv_case(Precision::fp32, dnn::ConvSpec{Shape4{2, 9, 9, 3}, 8, 7, 2, 3, true}, 1e-4);
}

TEST_CASE("conv2d in tf32, fp16 and bf16 stays within the storage type's precision") {
  const dnn::ConvSpec sp{Shape4{2, 8, 8, 16}, 32, 3, 2, 1, true};
  run_conv_case(Precision::tf32, sp, 5e-3);
  run_conv_case(Precision::fp16, sp, 1e-2);
  run_conv_case(Precision::bf16, sp, 4e-2);
}

TEST_CASE("conv2d through forced cuDNN backend engine plans (AMDAHL_CONV_ENGINES=force)") {
  // The plans only serve calls with beta = 0; backward-data with beta = 1 stays on the legacy
  // algorithm, so run_conv_case checks both paths side by side.
  ::setenv("AMDAHL_CONV_ENGINES", "force", 1);
  run_conv_case(Precision::fp32, dnn::ConvSpec{Shape4{2, 7, 6, 8}, 16, 3, 2, 1, true}, 1e-4, true);
  run_conv_case(Precision::fp32, dnn::ConvSpec{Shape4{3, 4, 4, 16}, 8, 1, 1, 0, true}, 1e-4, true);
  run_conv_case(Precision::tf32, dnn::ConvSpec{Shape4{2, 8, 8, 16}, 32, 3, 2, 1, true}, 5e-3, true);
  run_conv_case(Precision::fp16, dnn::ConvSpec{Shape4{2, 8, 8, 16}, 32, 3, 2, 1, true}, 1e-2, true);
  run_conv_case(Precision::bf16, dnn::ConvSpec{Shape4{2, 8, 8, 16}, 32, 1, 1, 0, true}, 4e-2, true);
  ::unsetenv("AMDAHL_CONV_ENGINES");
}

TEST_CASE("CPU batch-norm backward reference agrees with finite differences") {
  const Shape4 s{2, 2, 3, 3};
  const double eps = 1e-5;
  const auto xf = random_vector(s.count(), 21, -2.f, 2.f), rf = random_vector(s.count(), 22);
  const auto gf = random_vector(3, 23, 0.5f, 1.5f), bf = random_vector(3, 24);
  std::vector<double> x = to_double(xf), r = to_double(rf), g = to_double(gf), b = to_double(bf);
  const BnRef ref = bn_reference(s, x, g, b, r, eps);  // dL/dy = r for L = sum(y * r)
  auto loss = [&](const std::vector<double>& xx, const std::vector<double>& gg,
                  const std::vector<double>& bb) {
    const BnRef f = bn_reference(s, xx, gg, bb, r, eps);
    double l = 0;
    for (std::size_t i = 0; i < f.y.size(); ++i) l += f.y[i] * r[i];
    return l;
  };
  const double h = 1e-6;
  std::vector<double> num_dx(x.size()), num_dg(g.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    auto xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    num_dx[i] = (loss(xp, g, b) - loss(xm, g, b)) / (2 * h);
  }
  for (std::size_t i = 0; i < g.size(); ++i) {
    auto gp = g, gm = g;
    gp[i] += h;
    gm[i] -= h;
    num_dg[i] = (loss(x, gp, b) - loss(x, gm, b)) / (2 * h);
  }
  std::vector<float> dxf(ref.dx.begin(), ref.dx.end()), dgf(ref.dgamma.begin(), ref.dgamma.end());
  CHECK_CLOSE(compare("reference bn dx vs finite differences", dxf, num_dx, 1e-5));
  CHECK_CLOSE(compare("reference bn dgamma vs finite differences", dgf, num_dg, 1e-5));
}

TEST_CASE("batch norm matches a double-precision reference") {
  run_bn_case(Precision::fp32, Shape4{4, 3, 5, 6}, 1e-4);
  run_bn_case(Precision::fp32, Shape4{8, 7, 7, 64}, 1e-4);
  run_bn_case(Precision::fp16, Shape4{8, 7, 7, 64}, 2e-2);
  run_bn_case(Precision::bf16, Shape4{8, 7, 7, 64}, 5e-2);
  // Many row slices (partial sums combined across blocks), wide channel tiles, scalar loads for
  // a channel count that is not a multiple of the 16-byte vector.
  run_bn_case(Precision::fp32, Shape4{16, 14, 14, 256}, 1e-4);
  run_bn_case(Precision::fp16, Shape4{16, 14, 14, 256}, 2e-2);
  run_bn_case(Precision::fp16, Shape4{4, 5, 5, 12}, 2e-2);
  run_bn_case(Precision::tf32, Shape4{2, 3, 3, 36}, 1e-4);
}

TEST_CASE("batch norm fused with ReLU and with residual add + ReLU (forward and backward)") {
  using A = dnn::BnActivation;
  run_bn_case(Precision::fp32, Shape4{8, 7, 7, 64}, 1e-4, A::relu);
  run_bn_case(Precision::fp32, Shape4{4, 3, 5, 6}, 1e-4, A::add_relu);
  run_bn_case(Precision::fp16, Shape4{8, 7, 7, 64}, 2e-2, A::relu);
  run_bn_case(Precision::fp16, Shape4{8, 7, 7, 64}, 2e-2, A::add_relu);
  run_bn_case(Precision::bf16, Shape4{8, 7, 7, 64}, 5e-2, A::add_relu);
  run_bn_case(Precision::fp32, Shape4{16, 14, 14, 256}, 1e-4, A::add_relu);
}

TEST_CASE("fully connected layer matches a double-precision reference") {
  for (Precision p : {Precision::fp32, Precision::tf32}) {
    dnn::Context ctx(p);
    INFO("precision " << dnn::to_string(p));
    const int N = 5, I = 37, O = 11;
    dnn::Linear fc(ctx, N, I, O);
    const auto x = random_vector(static_cast<std::size_t>(N) * I, 31);
    const auto w = random_vector(static_cast<std::size_t>(O) * I, 32);
    const auto b = random_vector(O, 33);
    const auto dy = random_vector(static_cast<std::size_t>(N) * O, 34);
    dnn::DeviceBuffer x_d(x.size() * 4), w_d(w.size() * 4), b_d(b.size() * 4), dy_d(dy.size() * 4),
        y_d(dy.size() * 4), dx_d(x.size() * 4), dw_d(w.size() * 4), db_d(b.size() * 4);
    upload_f32(ctx, x, x_d.as<float>());
    upload_f32(ctx, w, w_d.as<float>());
    upload_f32(ctx, b, b_d.as<float>());
    upload_f32(ctx, dy, dy_d.as<float>());
    fc.forward(x_d.as<float>(), w_d.as<float>(), b_d.as<float>(), y_d.as<float>());
    fc.backward(x_d.as<float>(), dy_d.as<float>(), w_d.as<float>(), dx_d.as<float>(),
                dw_d.as<float>(), db_d.as<float>());
    std::vector<double> y(dy.size()), dx(x.size(), 0), dw(w.size(), 0), db(b.size(), 0);
    for (int n = 0; n < N; ++n)
      for (int o = 0; o < O; ++o) {
        double acc = b[o];
        const double g = dy[n * O + o];
        for (int i = 0; i < I; ++i) {
          acc += static_cast<double>(x[n * I + i]) * w[o * I + i];
          dx[n * I + i] += g * w[o * I + i];
          dw[o * I + i] += g * x[n * I + i];
        }
        y[n * O + o] = acc;
        db[o] += g;
      }
    const double tol = p == Precision::fp32 ? 1e-5 : 5e-3;
    CHECK_CLOSE(compare("fc forward y", download_f32(ctx, y_d.as<float>(), y.size()), y, tol));
    CHECK_CLOSE(compare("fc dx", download_f32(ctx, dx_d.as<float>(), dx.size()), dx, tol));
    CHECK_CLOSE(compare("fc dw", download_f32(ctx, dw_d.as<float>(), dw.size()), dw, tol));
    CHECK_CLOSE(compare("fc db", download_f32(ctx, db_d.as<float>(), db.size()), db, tol));
  }
}

TEST_CASE("max-pool 3x3 stride 2 pad 1 matches a reference (forward and backward)") {
  dnn::Context ctx(Precision::fp32);
  const Shape4 in{2, 7, 6, 4};
  dnn::MaxPool2d pool(ctx, in, 3, 2, 1);
  const Shape4 out = pool.output_shape();
  REQUIRE(out == Shape4{2, 4, 3, 4});
  // Distinct values so that the argmax is unique.
  std::vector<float> x(in.count());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % x.size()) * 0.01f - 1.f;
  const auto dy = random_vector(out.count(), 41);
  auto x_d = upload(ctx, x);
  auto dy_d = upload(ctx, dy);
  dnn::DeviceBuffer y_d(out.count() * 4), dx_d(in.count() * 4);
  pool.forward(x_d.get(), y_d.get());
  pool.backward(x_d.get(), y_d.get(), dy_d.get(), dx_d.get());
  std::vector<double> y(out.count()), dx(in.count(), 0);
  for (int n = 0; n < in.n; ++n)
    for (int oh = 0; oh < out.h; ++oh)
      for (int ow = 0; ow < out.w; ++ow)
        for (int c = 0; c < in.c; ++c) {
          double best = -1e30;
          std::size_t arg = 0;
          for (int r = 0; r < 3; ++r)
            for (int s = 0; s < 3; ++s) {
              const int ih = oh * 2 - 1 + r, iw = ow * 2 - 1 + s;
              if (ih < 0 || iw < 0 || ih >= in.h || iw >= in.w) continue;
              const std::size_t i = idx4(in, n, ih, iw, c);
              if (x[i] > best) {
                best = x[i];
                arg = i;
              }
            }
          y[idx4(out, n, oh, ow, c)] = best;
          dx[arg] += dy[idx4(out, n, oh, ow, c)];
        }
  CHECK_CLOSE(compare("max-pool forward", download(ctx, y_d.get(), out.count()), y, 1e-6));
  CHECK_CLOSE(compare("max-pool backward", download(ctx, dx_d.get(), in.count()), dx, 1e-6));
}

TEST_CASE("global average pool matches a reference (forward and backward)") {
  for (Precision p : {Precision::fp32, Precision::fp16}) {
    dnn::Context ctx(p);
    INFO("precision " << dnn::to_string(p));
    const Shape4 in{3, 7, 7, 300};
    auto x_d = upload(ctx, random_vector(in.count(), 51));
    const auto x = download(ctx, x_d.get(), in.count());
    const auto dy = random_vector(static_cast<std::size_t>(in.n) * in.c, 52);
    dnn::DeviceBuffer y_d(dy.size() * 4), dy_d(dy.size() * 4),
        dx_d(in.count() * dnn::dtype_size(ctx.act_type()));
    upload_f32(ctx, dy, dy_d.as<float>());
    dnn::global_avgpool_forward(ctx, in, x_d.get(), y_d.as<float>());
    dnn::global_avgpool_backward(ctx, in, dy_d.as<float>(), dx_d.get());
    std::vector<double> y(dy.size(), 0), dx(in.count());
    for (int n = 0; n < in.n; ++n)
      for (int h = 0; h < in.h; ++h)
        for (int w = 0; w < in.w; ++w)
          for (int c = 0; c < in.c; ++c) {
            y[static_cast<std::size_t>(n) * in.c + c] += x[idx4(in, n, h, w, c)] / 49.0;
            dx[idx4(in, n, h, w, c)] = dy[static_cast<std::size_t>(n) * in.c + c] / 49.0;
          }
    const double tol = p == Precision::fp32 ? 1e-5 : 2e-3;
    CHECK_CLOSE(compare("avg-pool forward", download_f32(ctx, y_d.as<float>(), y.size()), y, tol));
    CHECK_CLOSE(compare("avg-pool backward", download(ctx, dx_d.get(), in.count()), dx, tol));
  }
}

TEST_CASE("softmax cross-entropy: loss and gradient (with a loss scale)") {
  dnn::Context ctx(Precision::fp32);
  const int N = 6, K = 1000;
  auto logits = random_vector(static_cast<std::size_t>(N) * K, 61, -5.f, 5.f);
  const std::vector<int> labels{0, 999, 17, 500, 3, 42};
  const float scale = 128.f;
  dnn::DeviceBuffer l_d(logits.size() * 4), dl_d(logits.size() * 4), lab_d(N * 4), loss_d(4), s_d(4);
  upload_f32(ctx, logits, l_d.as<float>());
  upload_f32(ctx, {scale}, s_d.as<float>());
  AMDAHL_CUDA(cudaMemcpy(lab_d.get(), labels.data(), N * 4, cudaMemcpyHostToDevice));
  AMDAHL_CUDA(cudaMemset(loss_d.get(), 0, 4));
  dnn::softmax_cross_entropy(ctx, l_d.as<float>(), lab_d.as<int>(), N, K, dl_d.as<float>(),
                             loss_d.as<float>(), s_d.as<float>());
  double loss = 0;
  std::vector<double> grad(logits.size());
  for (int n = 0; n < N; ++n) {
    double m = -1e30, s = 0;
    for (int k = 0; k < K; ++k) m = std::max(m, static_cast<double>(logits[n * K + k]));
    for (int k = 0; k < K; ++k) s += std::exp(logits[n * K + k] - m);
    loss += (std::log(s) + m - logits[n * K + labels[n]]) / N;
    for (int k = 0; k < K; ++k)
      grad[n * K + k] = (std::exp(logits[n * K + k] - m) / s - (k == labels[n] ? 1 : 0)) / N * scale;
  }
  CHECK_CLOSE(compare("cross-entropy loss", download_f32(ctx, loss_d.as<float>(), 1), {loss}, 1e-5));
  CHECK_CLOSE(compare("cross-entropy dlogits (scaled)", download_f32(ctx, dl_d.as<float>(), grad.size()), grad, 1e-5));
}

TEST_CASE("ReLU, residual add+ReLU and their backward") {
  for (Precision p : {Precision::fp32, Precision::fp16, Precision::bf16}) {
    dnn::Context ctx(p);
    INFO("precision " << dnn::to_string(p));
    const std::size_t n = 1000 * 8;  // packable length
    for (std::size_t len : {n, n + 3}) {  // vectorized and scalar paths
      auto y_d = upload(ctx, random_vector(len, 71));
      auto z_d = upload(ctx, random_vector(len, 72));
      const auto y0 = download(ctx, y_d.get(), len), z = download(ctx, z_d.get(), len);
      dnn::add_relu_forward(ctx, y_d.get(), z_d.get(), len);
      const auto y1 = download(ctx, y_d.get(), len);
      std::vector<double> want(len);
      for (std::size_t i = 0; i < len; ++i) want[i] = std::max(0.0, static_cast<double>(y0[i]) + z[i]);
      CHECK_CLOSE(compare("add_relu forward", y1, want, 1e-2));
      auto g_d = upload(ctx, random_vector(len, 73));
      const auto g = download(ctx, g_d.get(), len);
      dnn::relu_backward(ctx, y_d.get(), g_d.get(), len);
      for (std::size_t i = 0; i < len; ++i) want[i] = y1[i] > 0 ? g[i] : 0.0;
      CHECK_CLOSE(compare("relu backward", download(ctx, g_d.get(), len), want, 0));
      auto r_d = upload(ctx, z);
      dnn::relu_forward(ctx, r_d.get(), len);
      for (std::size_t i = 0; i < len; ++i) want[i] = std::max(0.0, static_cast<double>(z[i]));
      CHECK_CLOSE(compare("relu forward", download(ctx, r_d.get(), len), want, 0));
    }
  }
}

TEST_CASE("SGD with momentum and weight decay, and fp16 loss-scaler overflow skipping") {
  dnn::Context ctx(Precision::fp16);
  dnn::ParamStore ps;
  const auto wref = ps.add_weight(10);
  const auto fref = ps.add_fp32(7);
  ps.allocate(ctx);
  dnn::LossScaler scaler(ctx, true, 1024.f, 2);
  const auto w0 = random_vector(10, 81), f0 = random_vector(7, 82);
  ps.upload(ctx, wref, w0);
  ps.upload(ctx, fref, f0);
  const auto gw = random_vector(10, 83), gf = random_vector(7, 84);
  // Gradients as the backward pass leaves them: multiplied by the loss scale.
  std::vector<float> gw_s(gw), gf_s(gf);
  for (float& v : gw_s) v *= 1024.f;
  for (float& v : gf_s) v *= 1024.f;
  upload_into(ctx, gw_s, ps.grad(wref));
  upload_f32(ctx, gf_s, ps.fp32_grad(fref));
  const dnn::SgdMomentum sgd(0.9f, 0.01f);
  const float lr = 0.1f;
  for (int step = 0; step < 2; ++step) {
    scaler.check(ctx, ps);
    sgd.step(ctx, ps, lr, scaler);
    scaler.update(ctx);
  }
  // Reference: two steps with the same gradient (fp16-rounded for the weights group).
  const auto gw_stored = download(ctx, ps.grad(wref), 10);
  auto expect = [&](const std::vector<float>& w0v, const std::vector<float>& g, float gscale) {
    std::vector<double> w(w0v.begin(), w0v.end()), v(w.size(), 0);
    for (int step = 0; step < 2; ++step)
      for (std::size_t i = 0; i < w.size(); ++i) {
        const double gi = g[i] / gscale + 0.01 * w[i];
        v[i] = 0.9 * v[i] + gi;
        w[i] -= lr * v[i];
      }
    return w;
  };
  CHECK_CLOSE(compare("sgd weights (fp32 master)", ps.download(ctx, wref), expect(w0, gw_stored, 1024.f), 1e-5));
  CHECK_CLOSE(compare("sgd fp32 params", ps.download(ctx, fref), expect(f0, gf_s, 1024.f), 1e-5));
  // After 2 clean steps with growth interval 2 the scale doubled.
  CHECK(scaler.scale(ctx) == doctest::Approx(2048.f));
  CHECK(scaler.skipped_steps(ctx) == 0);
  // An infinite gradient: the step is skipped and the scale halves.
  const auto before = ps.download(ctx, fref);
  std::vector<float> bad(gf_s);
  bad[3] = std::numeric_limits<float>::infinity();
  upload_f32(ctx, bad, ps.fp32_grad(fref));
  scaler.check(ctx, ps);
  sgd.step(ctx, ps, lr, scaler);
  scaler.update(ctx);
  CHECK(scaler.skipped_steps(ctx) == 1);
  CHECK(scaler.scale(ctx) == doctest::Approx(1024.f));
  CHECK_CLOSE(compare("parameters unchanged by a skipped step", ps.download(ctx, fref), to_double(before), 0));
}
