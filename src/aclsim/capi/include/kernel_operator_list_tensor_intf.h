/* aclsim: CANN's kernel_operator_list_tensor_intf.h, ListTensorDesc over dynamic input lists. */
#error "aclsim: ListTensorDesc (dynamic input lists, kernel_operator_list_tensor_intf.h) is not emulated; pass the tensors' GM addresses as kernel arguments"
