// dlib 19.24's side of model_compile_cost.sh's mlp-one (issue 44, goal 3): the demo's MLP
// 784-128-10 as a dlib network type, its trainer (SGD, lr 0.1) and one training step on a batch
// of 16, as a user of dlib writes one model and its training step. Compiled alone; not linked.
#include <cstdio>
#include <vector>

#include <dlib/dnn.h>

using net_type = dlib::loss_multiclass_log<
    dlib::fc<10, dlib::relu<dlib::fc<128, dlib::input<dlib::matrix<float>>>>>>;

int main() {
    net_type net;
    dlib::dnn_trainer<net_type> trainer(net, dlib::sgd(0, 0));
    trainer.set_learning_rate(0.1);
    trainer.set_mini_batch_size(16);
    std::vector<dlib::matrix<float>> images(16, dlib::matrix<float>(28, 28));
    for (auto& image : images)
        image = dlib::matrix_cast<float>(dlib::gaussian_randm(28, 28, 0));
    const std::vector<unsigned long> labels(16, 0);
    trainer.train_one_step(images, labels);
    trainer.get_net(); // waits for the step
    std::printf("%g\n", trainer.get_average_loss());
}
