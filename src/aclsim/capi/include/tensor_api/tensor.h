/* aclsim: CANN's tensor_api/tensor.h, the Tensor API of Ascend 950 (layouts, AscendC::Te). */
#error "aclsim: the Tensor API (tensor_api/, AscendC::Te, Ascend 950) is not emulated; write the kernel with kernel_operator.h's LocalTensor/GlobalTensor API"
